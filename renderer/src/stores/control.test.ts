import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../protocol';
import { applyEvents, emptyTranscript } from './transcript';

let seq = 0;
const ev = (e: Record<string, unknown>) => ({ sessionId: 's', seq: ++seq, at: 0, ...e }) as SessionEvent;
const requested = (requestId: string, turnId = 't1') =>
  ev({ type: 'approval.requested', turnId, requestId, kind: 'tool', toolName: 'Write', description: 'Write a', display: { kind: 'generic', summary: 'a' }, reason: 'ask' });

describe('control state from events', () => {
  it('queues approvals in order and drops them when answered or when their turn ends', () => {
    let t = applyEvents(emptyTranscript, [requested('a'), requested('b'), requested('c', 't2')]);
    expect(t.control.approvals.map((a) => a.requestId)).toEqual(['a', 'b', 'c']);
    t = applyEvents(t, [ev({ type: 'approval.resolved', requestId: 'a', outcome: 'approved', scope: 'once' })]);
    expect(t.control.approvals.map((a) => a.requestId)).toEqual(['b', 'c']);
    t = applyEvents(t, [ev({ type: 'turn.ended', turnId: 't1', stopReason: 'cancelled', durationMs: 1 })]);
    expect(t.control.approvals.map((a) => a.requestId)).toEqual(['c']);
  });

  it('keeps the latest mode, plan, todos and goal, and notes mode and plan switches in the transcript', () => {
    const t = applyEvents(emptyTranscript, [
      ev({ type: 'permission.mode.changed', mode: 'yolo', previous: 'ask' }),
      ev({ type: 'plan.mode.changed', plan: { active: true, planId: 'p', path: '/p.md' } }),
      ev({ type: 'todo.updated', items: [{ title: 'x', status: 'in_progress' }] }),
      ev({ type: 'goal.updated', goal: null }),
      ev({ type: 'question.asked', turnId: 't1', requestId: 'q', callId: 'c', questions: [] }),
      ev({ type: 'question.answered', requestId: 'q', answers: {}, dismissed: true }),
    ]);
    expect(t.control).toMatchObject({ mode: 'yolo', plan: { active: true }, todos: [{ title: 'x' }], goal: null, questions: [] });
    expect(t.items.map((i) => (i.kind === 'notice' ? i.text : i.kind))).toEqual(['Permission mode: Yolo', 'Plan mode on']);
  });
});
