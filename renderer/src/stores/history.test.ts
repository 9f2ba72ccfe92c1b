import { describe, expect, it } from 'vitest';
import { historySlice, undoNotice } from './history';
import { reduce } from './session-slice';
import { eventsOf } from './test-events';
import { emptyTranscript, transcriptSlice } from './transcript';

describe('compaction and undo from events', () => {
  it('shows a running compaction, then the compacted notice with its note; the composer knows while it runs', () => {
    const ev = eventsOf();
    const started = ev('compaction.started', { compactionId: 'c1', trigger: 'manual', tokensBefore: 90_000, contextWindow: 128_000 });
    const ended = ev('compaction.ended', {
      compactionId: 'c1',
      trigger: 'manual',
      outcome: 'compacted',
      note: 'I did things.',
      tokensBefore: 90_000,
      tokensAfter: 4_000,
      keptMessages: 2,
      reattached: [{ feature: 'todo', count: 1 }],
    });
    const running = reduce(transcriptSlice, emptyTranscript, [started]);
    expect(reduce(historySlice, historySlice.empty, [started]).compacting).toBe('c1');
    expect(running.items).toEqual([
      { kind: 'compaction', id: 'compaction:c1', trigger: 'manual', status: 'running', tokensBefore: 90_000, contextWindow: 128_000 },
    ]);
    const done = reduce(transcriptSlice, running, [ended]);
    expect(reduce(historySlice, historySlice.empty, [started, ended]).compacting).toBeNull();
    expect(done.items).toHaveLength(1);
    expect(done.items[0]).toMatchObject({ status: 'compacted', note: 'I did things.', tokensAfter: 4_000, keptMessages: 2 });
  });

  it('shows a compaction whose start it never saw, and a restarted one once', () => {
    const ev = eventsOf();
    const failed = reduce(transcriptSlice, emptyTranscript, [
      ev('compaction.ended', {
        compactionId: 'c2',
        trigger: 'auto',
        turnId: 't',
        outcome: 'failed',
        error: { code: 'provider_server', message: 'Boom.' },
        tokensBefore: 1,
      }),
    ]);
    expect(failed.items).toEqual([
      {
        kind: 'compaction',
        id: 'compaction:c2',
        trigger: 'auto',
        tokensBefore: 1,
        turnId: 't',
        status: 'failed',
        error: { code: 'provider_server', message: 'Boom.' },
      },
    ]);
    const again = reduce(transcriptSlice, emptyTranscript, [
      ev('compaction.started', { compactionId: 'c3', trigger: 'auto', tokensBefore: 1, contextWindow: 2, instructions: 'keep names' }),
      ev('compaction.started', { compactionId: 'c3', trigger: 'auto', tokensBefore: 1, contextWindow: 2 }),
    ]);
    expect(again.items).toHaveLength(1);
    // The end of another compaction does not clear the one running.
    const state = reduce(historySlice, historySlice.empty, [
      ev('compaction.started', { compactionId: 'a', trigger: 'auto', tokensBefore: 1, contextWindow: 2 }),
    ]);
    expect(reduce(historySlice, state, [ev('compaction.ended', { compactionId: 'b', trigger: 'auto', outcome: 'cancelled', tokensBefore: 1 })])).toBe(state);
  });

  it('greys undone turns (their items stay) and says that files were not restored', () => {
    const ev = eventsOf();
    const events = [
      ev('turn.started', { turnId: 't1', text: 'one', attachments: [], origin: 'user' }),
      ev('turn.ended', { turnId: 't1', stopReason: 'end_turn', durationMs: 1 }),
      ev('turn.started', { turnId: 't2', text: 'two', attachments: [], origin: 'user' }),
      ev('turn.ended', { turnId: 't2', stopReason: 'end_turn', durationMs: 1 }),
      ev('turns.undone', { turnIds: ['t2'] }),
    ];
    const state = reduce(transcriptSlice, emptyTranscript, events);
    expect(reduce(historySlice, historySlice.empty, events).undone).toEqual({ t2: true });
    expect(state.items.map((i) => i.kind)).toEqual(['user', 'user', 'notice']);
    expect(state.items[2]).toMatchObject({ kind: 'notice', text: expect.stringContaining('Files changed in that turn were not restored.') });
    expect(undoNotice(3)).toMatch(/^Undid the last 3 turns: Deft no longer reads them, .* Files changed in those turns were not restored\.$/);
  });

  it("leaves a rewind's undo of turns to the rewind's own notice: one notice per action, replaced on undo", () => {
    const ev = eventsOf();
    const result = {
      rewindId: 'r1',
      turnId: 't2',
      scope: 'both' as const,
      index: 2,
      restored: ['a.txt', 'b.txt'],
      removed: [],
      broughtBack: [],
      keptOutside: [],
      notCaptured: [],
      problems: [],
      undoneTurns: ['t2'],
    };
    const events = [
      ev('turn.started', { turnId: 't1', text: 'one', attachments: [], origin: 'user' }),
      ev('turn.ended', { turnId: 't1', stopReason: 'end_turn', durationMs: 1 }),
      ev('turn.started', { turnId: 't2', text: 'two', attachments: [], origin: 'user' }),
      ev('turn.ended', { turnId: 't2', stopReason: 'end_turn', durationMs: 1 }),
      ev('turns.undone', { turnIds: ['t2'], byRewind: true }),
      ev('rewind.done', { result }),
    ];
    const rewound = reduce(transcriptSlice, emptyTranscript, events);
    expect(reduce(historySlice, historySlice.empty, events).undone).toEqual({ t2: true });
    expect(rewound.items.map((i) => i.kind)).toEqual(['user', 'user', 'rewind']);
    const undone = reduce(transcriptSlice, rewound, [
      ev('turns.redone', { turnIds: ['t2'] }),
      ev('rewind.undone', { rewindId: 'r1', scope: 'both', problems: [] }),
    ]);
    expect(undone.items.map((i) => i.kind)).toEqual(['user', 'user', 'rewind']);
    expect(undone.items[2]).toMatchObject({ kind: 'rewind', undone: true });
  });
});
