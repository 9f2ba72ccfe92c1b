import { describe, expect, it } from 'vitest';
import type { ElsewhereRequest } from '#protocol';
import { waitingIn, waitingWords } from './elsewhere';
import { mainSessionsNow } from './worktrees';

const request = (worktree: string | null, kind: ElsewhereRequest['kind'] = 'approval'): ElsewhereRequest => ({
  worktree: worktree ? { name: worktree, branch: `deft/${worktree}` } : null,
  sessionId: 's',
  title: 'T',
  requestId: `${worktree}-${kind}`,
  kind,
  summary: 'Write: x',
  at: 1,
});

describe('what waits in the other checkouts', () => {
  it('is counted per checkout (null: the main checkout) and said in words', () => {
    const all = [request('a'), request('a', 'question'), request(null, 'plan')];
    expect(waitingIn(all, 'a')).toHaveLength(2);
    expect(waitingIn(all, null).map((r) => r.kind)).toEqual(['plan']);
    expect(waitingIn(all, 'b')).toEqual([]);
    expect(waitingWords(waitingIn(all, 'a'))).toBe('2 requests');
    expect(waitingWords([request('a')])).toBe('an approval');
    expect(waitingWords([request('a', 'plan')])).toBe('a plan review');
    expect(waitingWords([request('a', 'question')])).toBe('a question');
    expect(waitingWords([request('a', 'review')])).toBe('a change review');
  });
});

describe("the main checkout's sessions seen from a worktree", () => {
  it('lists those that run or wait, and keeps those that stopped since as done', () => {
    const first = mainSessionsNow(
      [],
      [
        { id: '1', title: 'Ask', live: 'waiting' },
        { id: '2', title: 'Slow', live: 'running' },
        { id: '3', title: 'Idle', live: 'idle' },
      ],
    );
    expect(first).toEqual([
      { id: '1', title: 'Ask', live: 'waiting' },
      { id: '2', title: 'Slow', live: 'running' },
    ]);
    const later = mainSessionsNow(first, [{ id: '1', title: 'Ask', live: 'waiting' }]);
    expect(later).toEqual([
      { id: '1', title: 'Ask', live: 'waiting' },
      { id: '2', title: 'Slow', live: 'done' },
    ]);
    // Running again: no longer done.
    expect(mainSessionsNow(later, [{ id: '2', title: 'Slow', live: 'running' }])).toEqual([
      { id: '2', title: 'Slow', live: 'running' },
      { id: '1', title: 'Ask', live: 'done' },
    ]);
  });
});
