import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { pendingRequests } from './asking';

const event = (type: string, fields: Record<string, unknown>) => ({ type, sessionId: 's', seq: 1, at: 0, ...fields }) as unknown as SessionEvent;

describe('requests to ask again', () => {
  it('are the approvals and questions nothing answered, in a turn that did not end', () => {
    const events = [
      event('approval.requested', { requestId: 'r1', turnId: 't1' }),
      event('approval.resolved', { requestId: 'r1', turnId: 't1' }),
      event('approval.requested', { requestId: 'r2', turnId: 't1' }),
      event('turn.ended', { turnId: 't1' }),
      event('question.asked', { requestId: 'q1', turnId: 't2' }),
      event('question.answered', { requestId: 'q1', turnId: 't2' }),
      event('approval.requested', { requestId: 'r3', turnId: 't2' }),
      event('question.asked', { requestId: 'q2', turnId: 't2' }),
    ];
    expect(pendingRequests(events).map((e) => (e as { requestId: string }).requestId)).toEqual(['r3', 'q2']);
    expect(pendingRequests([])).toEqual([]);
  });
});
