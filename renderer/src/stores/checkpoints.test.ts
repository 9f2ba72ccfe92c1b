import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { type CheckpointsState, checkpointsSlice } from './checkpoints';
import { reduce } from './session-slice';
import { eventsOf } from './test-events';
import { type Transcript, emptyTranscript, transcriptSlice } from './transcript';

const replay = (events: SessionEvent[], from: Transcript = emptyTranscript) => reduce(transcriptSlice, from, events);
const state = (events: SessionEvent[], from: CheckpointsState = checkpointsSlice.empty) => reduce(checkpointsSlice, from, events);
const result = {
  rewindId: 'r1',
  scope: 'both' as const,
  turnId: 't2',
  index: 2,
  restored: ['a.txt'],
  removed: [],
  broughtBack: [],
  keptOutside: [],
  problems: [],
  notCaptured: [],
  undoneTurns: ['t2'],
};

describe('checkpoints in the window', () => {
  it("replaces a turn's changed files from the tools with the checkpoints' list, in place, shell changes included", () => {
    const ev = eventsOf();
    const diff = { kind: 'diff' as const, path: 'a.txt', before: 'x\n', after: 'y\n', added: 1, removed: 1 };
    const t = replay([
      ev('turn.started', { turnId: 't1', text: 'change', attachments: [], origin: 'user' }),
      ev('tool.call.started', {
        turnId: 't1',
        step: 0,
        callId: 'c1',
        name: 'Write',
        args: {},
        description: 'Write a.txt',
        display: { kind: 'generic', summary: 'a.txt' },
      }),
      ev('tool.call.result', { turnId: 't1', callId: 'c1', name: 'Write', isError: false, output: 'ok', durationMs: 1, display: diff }),
      ev('turn.ended', { turnId: 't1', stopReason: 'end_turn', durationMs: 5 }),
      ev('turn.started', { turnId: 't2', text: 'next', attachments: [], origin: 'user' }),
    ]);
    const changes = () => t.items.find((i) => i.kind === 'changes');
    expect(changes()).toMatchObject({ files: [{ path: 'a.txt', callIds: ['c1'] }] });
    const after = replay(
      [
        ev('turn.changes', {
          turnId: 't1',
          files: [
            { path: 'a.txt', status: 'modified', added: 1, removed: 1 },
            { path: 'b.txt', status: 'deleted', added: 0, removed: 3 },
            { path: 'img.png', status: 'added', added: null, removed: null },
          ],
          more: 0,
        }),
      ],
      t,
    );
    const item = after.items.find((i) => i.kind === 'changes');
    expect(item).toMatchObject({ checkpointed: true, files: [{ path: 'a.txt' }, { path: 'b.txt', status: 'deleted' }, { path: 'img.png', binary: true }] });
    // Same place: still before the next prompt.
    expect(after.items.map((i) => i.id)).toEqual(t.items.map((i) => i.id));
    // No change at all (a revert took it back): the row goes.
    expect(replay([ev('turn.changes', { turnId: 't1', files: [], more: 0 })], after).items.some((i) => i.kind === 'changes')).toBe(false);
  });

  it('adds a rewind notice, marks it undone, and allows Undo rewind only until the next turn', () => {
    const ev = eventsOf();
    const done = [ev('rewind.done', { result })];
    expect(state(done).undoable).toEqual({ rewindId: 'r1', scope: 'both' });
    expect(replay(done).items).toEqual([{ kind: 'rewind', id: 'rewind:r1', result, undone: false }]);
    const undone = ev('rewind.undone', { rewindId: 'r1', scope: 'both', problems: [] });
    expect(state([...done, undone]).undoable).toBeNull();
    expect(replay([...done, undone]).items[0]).toMatchObject({ undone: true });
    expect(state([...done, ev('turn.started', { turnId: 't3', text: 'go', attachments: [], origin: 'user' })]).undoable).toBeNull();
  });
});
