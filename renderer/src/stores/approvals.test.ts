import { beforeEach, describe, expect, it } from 'vitest';
import type { SessionSummary } from '#protocol';
import { requestsOf, requestsSlice, useApprovals, waitingCount } from './approvals';
import { reduce } from './session-slice';
import { eventsOf } from './test-events';

const ev = eventsOf();
const requested = (requestId: string, turnId = 't1') =>
  ev('approval.requested', {
    turnId,
    requestId,
    kind: 'tool',
    toolName: 'Write',
    description: 'Write a',
    display: { kind: 'generic', summary: 'a' },
    reason: 'ask',
  });
const asked = (requestId: string, turnId = 't1') => ev('question.asked', { turnId, requestId, callId: 'c', questions: [] });
const ids = (list: Array<{ requestId: string }>) => list.map((r) => r.requestId);
const summary = (id: string, waiting?: SessionSummary['waiting']): SessionSummary => ({
  id,
  title: id,
  workspace: '/w',
  createdAt: 0,
  updatedAt: 0,
  turns: 0,
  running: false,
  ...(waiting ? { waiting } : {}),
});

describe('approvals and questions from a session’s events', () => {
  it('queues approvals in order and drops them when answered or when their turn ends', () => {
    let t = reduce(requestsSlice, requestsSlice.empty, [requested('a'), requested('b'), requested('c', 't2')]);
    expect(ids(t.approvals)).toEqual(['a', 'b', 'c']);
    t = reduce(requestsSlice, t, [ev('approval.resolved', { requestId: 'a', outcome: 'approved', scope: 'once' })]);
    expect(ids(t.approvals)).toEqual(['b', 'c']);
    t = reduce(requestsSlice, t, [ev('turn.ended', { turnId: 't1', stopReason: 'cancelled', durationMs: 1 })]);
    expect(ids(t.approvals)).toEqual(['c']);
  });

  it('keeps a question until it is answered or dismissed, and a repeated request once, at the end', () => {
    let t = reduce(requestsSlice, requestsSlice.empty, [asked('q'), requested('a'), requested('b'), requested('a')]);
    expect(ids(t.questions)).toEqual(['q']);
    expect(ids(t.approvals)).toEqual(['b', 'a']);
    expect(t.approvals[1]).toMatchObject({ turnId: 't1', toolName: 'Write', reason: 'ask' });
    expect(t.approvals[1]).not.toHaveProperty('seq');
    t = reduce(requestsSlice, t, [ev('question.answered', { requestId: 'q', answers: {}, dismissed: true })]);
    expect(t.questions).toEqual([]);
    expect(waitingCount(t)).toBe(2);
  });

  it('returns the very same state for a turn that waited for nothing', () => {
    const t = reduce(requestsSlice, requestsSlice.empty, [requested('a')]);
    expect(reduce(requestsSlice, t, [ev('turn.ended', { turnId: 'other', stopReason: 'end_turn', durationMs: 1 })])).toBe(t);
  });
});

describe('what waits, per session', () => {
  beforeEach(() => useApprovals.setState({ bySession: {} }));
  const state = () => useApprovals.getState();

  it('follows each session from its own events', () => {
    state().apply('s1', [requested('a')]);
    state().apply('s2', [asked('q', 't9')]);
    expect(ids(requestsOf(state(), 's1').approvals)).toEqual(['a']);
    expect(ids(requestsOf(state(), 's2').questions)).toEqual(['q']);
    expect(requestsOf(state(), 'nobody')).toBe(requestsOf(state(), null));
    const before = state().bySession;
    state().apply('s1', [ev('goal.updated', { goal: null })]);
    expect(state().bySession).toBe(before);
  });

  it('takes the host’s list for sessions not open here, keeping what it knows in full, and leaves the open one alone', () => {
    state().apply('open', [requested('late')]);
    state().apply('other', [requested('known'), requested('gone')]);
    state().apply('stale', [requested('x')]);
    state().listed(
      [
        summary('open'), // taken before 'late' arrived: it must not drop it
        summary('other', [
          { id: 'known', turnId: 't1' },
          { id: 'fresh', turnId: 't3' },
        ]),
        summary('stale'),
        summary('new', [{ id: 'n', turnId: 't1' }]),
      ],
      'open',
    );
    expect(ids(requestsOf(state(), 'open').approvals)).toEqual(['late']);
    expect(requestsOf(state(), 'other')).toMatchObject({ listed: [{ id: 'fresh', turnId: 't3' }] });
    expect(ids(requestsOf(state(), 'other').approvals)).toEqual(['known']);
    expect(state().bySession).not.toHaveProperty('stale');
    expect(waitingCount(requestsOf(state(), 'new'))).toBe(1);
  });

  it('drops a listed request when its answer or the end of its turn arrives', () => {
    state().listed(
      [
        summary('s', [
          { id: 'a', turnId: 't1' },
          { id: 'b', turnId: 't2' },
          { id: 'c', turnId: 't2' },
        ]),
      ],
      null,
    );
    state().apply('s', [ev('approval.resolved', { requestId: 'a', outcome: 'approved' })]);
    expect(requestsOf(state(), 's').listed.map((r) => r.id)).toEqual(['b', 'c']);
    state().apply('s', [ev('turn.ended', { turnId: 't2', stopReason: 'cancelled', durationMs: 1 })]);
    expect(waitingCount(requestsOf(state(), 's'))).toBe(0);
    // The request arriving in full replaces its listed entry.
    state().listed([summary('s', [{ id: 'd', turnId: 't3' }])], null);
    state().apply('s', [requested('d', 't3')]);
    expect(requestsOf(state(), 's')).toMatchObject({ listed: [], approvals: [{ requestId: 'd' }] });
  });

  it('forgets a session that is cleared', () => {
    state().apply('s', [requested('a')]);
    state().clear('s');
    expect(state().bySession).toEqual({});
  });
});
