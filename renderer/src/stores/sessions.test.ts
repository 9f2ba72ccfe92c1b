import { beforeEach, describe, expect, it } from 'vitest';
import { requestsOf, useApprovals } from './approvals';
import { useHistory } from './history';
import { useModes } from './modes';
import { useSessions } from './sessions';
import { eventsOf } from './test-events';
import { useTodo } from './todo';
import { useTranscript } from './transcript';

const sessions = () => useSessions.getState();
const texts = () => useTranscript.getState().items.map((i) => ('text' in i ? i.text : i.kind));
const prompt = (ev: ReturnType<typeof eventsOf>, text: string, turnId = text) => ev('turn.started', { turnId, text, attachments: [], origin: 'user' });
const requested = (ev: ReturnType<typeof eventsOf>, requestId: string) =>
  ev('approval.requested', {
    turnId: 't',
    requestId,
    kind: 'tool',
    toolName: 'Bash',
    description: 'Run',
    display: { kind: 'command', command: 'ls' },
    reason: 'ask',
  });

beforeEach(() => {
  // Back to a window with nothing open.
  sessions().beginOpen('reset');
  sessions().removeSession('reset');
  useApprovals.setState({ bySession: {} });
});

describe('the open session', () => {
  it('replays its events when it opens; live events that arrive meanwhile wait, and each event counts once', () => {
    const ev = eventsOf('a');
    const [one, mode, two, three] = [
      prompt(ev, 'one'),
      ev('permission.mode.changed', { mode: 'yolo', previous: 'ask' }),
      prompt(ev, 'two'),
      prompt(ev, 'three'),
    ];
    sessions().beginOpen('a');
    expect(sessions()).toMatchObject({ currentId: 'a', loading: true });
    sessions().apply([two, three]);
    expect(texts()).toEqual([]);
    sessions().finishOpen('a', [one, mode, two], false, ['line 9 is damaged']);
    expect(texts()).toEqual(['one', 'Permission mode: Yolo', 'two', 'three']);
    expect(useModes.getState().permission).toBe('yolo');
    expect(sessions()).toMatchObject({ loading: false, pending: [], lastSeq: 4, problems: ['line 9 is damaged'] });
    sessions().apply([three, prompt(ev, 'four')]);
    expect(texts()).toEqual(['one', 'Permission mode: Yolo', 'two', 'three', 'four']);
  });

  it('catches up from its last event when it is opened again, or starts over when the host says so', () => {
    const ev = eventsOf('a');
    const [one, two] = [prompt(ev, 'one'), prompt(ev, 'two')];
    sessions().beginOpen('a');
    sessions().finishOpen('a', [one], false, []);
    sessions().beginOpen('a');
    expect(texts()).toEqual(['one']);
    sessions().finishOpen('a', [one, two], false, []);
    expect(texts()).toEqual(['one', 'two']);
    sessions().beginOpen('a');
    sessions().finishOpen('a', [two], true, []);
    expect(texts()).toEqual(['two']);
  });

  it('shows nothing of the previous session once another opens, and ignores a replay that lands too late', () => {
    const a = eventsOf('a');
    const b = eventsOf('b');
    sessions().beginOpen('a');
    sessions().finishOpen(
      'a',
      [
        prompt(a, 'in a'),
        a('todo.updated', { items: [{ title: 'x', status: 'pending' }] }),
        a('compaction.started', { compactionId: 'c', trigger: 'auto', tokensBefore: 1, contextWindow: 2 }),
      ],
      false,
      [],
    );
    expect(useHistory.getState().compacting).toBe('c');
    sessions().beginOpen('b');
    expect(texts()).toEqual([]);
    expect(useTodo.getState().items).toEqual([]);
    expect(useHistory.getState().compacting).toBeNull();
    sessions().finishOpen('a', [prompt(a, 'late')], false, []);
    expect(texts()).toEqual([]);
    expect(sessions().loading).toBe(true);
    sessions().finishOpen('b', [prompt(b, 'in b')], false, []);
    expect(texts()).toEqual(['in b']);
  });

  it('follows what waits in sessions that are not open, and rebuilds it for a session from its replay', () => {
    const a = eventsOf('a');
    const b = eventsOf('b');
    const waitingInB = requested(b, 'r1');
    sessions().beginOpen('a');
    sessions().finishOpen('a', [prompt(a, 'in a')], false, []);
    sessions().apply([waitingInB, prompt(b, 'not shown')]);
    expect(texts()).toEqual(['in a']);
    expect(requestsOf(useApprovals.getState(), 'b').approvals.map((r) => r.requestId)).toEqual(['r1']);
    // Opened, b's replay decides what waits: r1 was answered in the meantime.
    sessions().beginOpen('b');
    sessions().finishOpen('b', [waitingInB, b('approval.resolved', { requestId: 'r1', outcome: 'approved' })], false, []);
    expect(requestsOf(useApprovals.getState(), 'b').approvals).toEqual([]);
  });

  it('lets a replay from the first event decide what waits, whatever the session list said before', () => {
    const a = eventsOf('a');
    useApprovals
      .getState()
      .listed([{ id: 'a', title: 'a', workspace: '/w', createdAt: 0, updatedAt: 0, turns: 1, running: true, waiting: [{ id: 'x', turnId: 'old' }] }], null);
    sessions().beginOpen('a');
    expect(requestsOf(useApprovals.getState(), 'a').listed).toHaveLength(1);
    sessions().finishOpen('a', [prompt(a, 'one'), requested(a, 'r')], false, []);
    expect(requestsOf(useApprovals.getState(), 'a')).toMatchObject({ listed: [], approvals: [{ requestId: 'r' }] });
  });

  it('closes when the open session is deleted', () => {
    const ev = eventsOf('a');
    sessions().beginOpen('a');
    sessions().finishOpen('a', [prompt(ev, 'one'), requested(ev, 'r')], false, []);
    sessions().removeSession('a');
    expect(sessions()).toMatchObject({ currentId: null, lastSeq: 0 });
    expect(texts()).toEqual([]);
    expect(useApprovals.getState().bySession).toEqual({});
  });

  it('updates each domain once per batch, and leaves the ones a batch does not concern untouched', () => {
    const ev = eventsOf('a');
    sessions().beginOpen('a');
    sessions().finishOpen('a', [prompt(ev, 'one')], false, []);
    const updates = { transcript: 0, todo: 0, approvals: 0 };
    const stops = [
      useTranscript.subscribe(() => updates.transcript++),
      useTodo.subscribe(() => updates.todo++),
      useApprovals.subscribe(() => updates.approvals++),
    ];
    sessions().apply(Array.from({ length: 50 }, () => ev('assistant.delta', { turnId: 'one', step: 0, text: 'x' })));
    for (const stop of stops) stop();
    expect(updates).toEqual({ transcript: 1, todo: 0, approvals: 0 });
    expect(useTranscript.getState().items[1]).toMatchObject({ kind: 'assistant', text: 'x'.repeat(50) });
  });
});
