import { describe, expect, it, vi } from 'vitest';
import type { DeftEvent } from '#protocol';
import { WaitingBoard } from './waiting-board';

// What waits in each of a host's cores, told to the pages that show another one (issue 30).

/** A core that emits the events it is given (the board only listens). */
function emitter() {
  const listeners = new Set<(event: DeftEvent) => void>();
  let seq = 0;
  return {
    onEvent(listener: (event: DeftEvent) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    emit(event: Record<string, unknown>) {
      const stamped = { sessionId: 's1', seq: ++seq, at: 1_000 + seq, ...event } as unknown as DeftEvent;
      for (const l of listeners) l(stamped);
    },
    get listening() {
      return listeners.size;
    },
  };
}

const approval = (requestId: string, extra: Record<string, unknown> = {}) => ({
  type: 'approval.requested',
  turnId: 't1',
  requestId,
  kind: 'tool',
  toolName: 'Write',
  description: 'Create para.txt',
  display: { kind: 'none' },
  reason: 'ask mode',
  ...extra,
});

describe('WaitingBoard', () => {
  it('lists what waits in the OTHER cores, with the session title and the checkout, until it is answered', () => {
    const board = new WaitingBoard();
    const main = emitter();
    const side = emitter();
    board.watch(null, main);
    board.watch({ name: 'side', branch: 'deft/side' }, side);
    const told = vi.fn();
    board.subscribe(told);
    side.emit({ type: 'session.updated', session: { title: 'Write para.txt' } });
    side.emit(approval('r1'));
    expect(told).toHaveBeenCalledTimes(1);
    // The main checkout's page is told; the worktree's own page is not (it shows the card itself).
    expect(board.elsewhere(null)).toEqual({
      type: 'requests.elsewhere',
      total: 1,
      requests: [
        {
          worktree: { name: 'side', branch: 'deft/side' },
          sessionId: 's1',
          title: 'Write para.txt',
          requestId: 'r1',
          kind: 'approval',
          summary: 'Write: Create para.txt',
          at: 1_002,
        },
      ],
    });
    expect(board.elsewhere({ name: 'side', branch: 'deft/side' }).requests).toEqual([]);
    // A question in the main checkout: the worktree's page hears of it.
    main.emit({ type: 'question.asked', sessionId: 'm1', turnId: 't', requestId: 'q1', callId: 'c', questions: [{ question: 'Which one?' }] });
    expect(board.elsewhere({ name: 'side', branch: 'deft/side' }).requests).toMatchObject([
      { worktree: null, kind: 'question', summary: 'Which one?', title: 'A session' },
    ]);
    side.emit({ type: 'approval.resolved', requestId: 'r1', outcome: 'approved' });
    expect(board.elsewhere(null).requests).toEqual([]);
    main.emit({ type: 'question.answered', sessionId: 'm1', requestId: 'q1', answers: {}, dismissed: true });
    expect(board.elsewhere({ name: 'side', branch: 'deft/side' }).total).toBe(0);
  });

  it('a plan review and a change review are named so; a turn that ends or a session deleted takes its requests', () => {
    const board = new WaitingBoard();
    const side = emitter();
    board.watch({ name: 'side', branch: 'deft/side' }, side);
    side.emit(approval('p1', { kind: 'plan_review', toolName: 'ExitPlanMode' }));
    side.emit({ type: 'change.review.requested', request: { requestId: 'v1', path: 'src/a.ts' } });
    expect(board.elsewhere(null).requests.map((r) => [r.kind, r.summary])).toEqual([
      ['plan', 'A plan waits for your review'],
      ['review', 'Review the change to src/a.ts'],
    ]);
    // The turn stopped without a resolution heard: nothing of it is left waiting.
    side.emit({ type: 'turn.ended', turnId: 't1', stopReason: 'cancelled', durationMs: 1 });
    expect(board.elsewhere(null).requests).toEqual([]);
    side.emit(approval('r2', { sessionId: 's2' }));
    side.emit({ type: 'session.deleted', sessionId: 's2' });
    expect(board.elsewhere(null).requests).toEqual([]);
  });

  it('a core let go of (closed, or the host serves another folder) takes what waited there, and is no longer listened to', () => {
    const board = new WaitingBoard();
    const side = emitter();
    const told = vi.fn();
    board.subscribe(told);
    board.watch({ name: 'side', branch: 'deft/side' }, side);
    side.emit(approval('r1'));
    board.forgetAll();
    expect(side.listening).toBe(0);
    expect(board.elsewhere(null).requests).toEqual([]);
    expect(told).toHaveBeenCalledTimes(2);
    // Watching a key again replaces the core before (one listener, its own requests).
    const again = emitter();
    board.watch({ name: 'side', branch: 'deft/side' }, again);
    board.watch({ name: 'side', branch: 'deft/side' }, again);
    expect(again.listening).toBe(1);
  });

  it('what a core says is cut and checked: long text is cut, a request that does not fit the schema is not listed', () => {
    const board = new WaitingBoard();
    const side = emitter();
    board.watch({ name: 'side', branch: 'deft/side' }, side);
    side.emit({ type: 'session.updated', session: { title: 'T'.repeat(5_000) } });
    side.emit(approval('r1', { description: `rm -rf /\n\n${'x'.repeat(10_000)}` }));
    side.emit(approval('r'.repeat(5_000)));
    side.emit(approval('', {}));
    const [request, ...rest] = board.elsewhere(null).requests;
    expect(rest.map((r) => r.requestId.length)).toEqual([200]);
    expect(request!.title.length).toBe(300);
    expect(request!.summary.length).toBe(500);
    expect(request!.summary.startsWith('Write: rm -rf / x')).toBe(true);
  });

  it('lists at most 50 to a page, and counts them all', () => {
    const board = new WaitingBoard();
    const side = emitter();
    board.watch({ name: 'side', branch: 'deft/side' }, side);
    for (let i = 0; i < 70; i++) side.emit(approval(`r${i}`));
    const told = board.elsewhere(null);
    expect(told.requests).toHaveLength(50);
    expect(told.total).toBe(70);
    expect(told.requests[0]!.requestId).toBe('r0');
  });
});
