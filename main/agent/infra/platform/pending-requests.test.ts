import { describe, expect, it } from 'vitest';
import { PendingRequests } from './pending-requests';

describe('PendingRequests', () => {
  it('keeps requests in the order they were made and settles each once', async () => {
    const pending = new PendingRequests<string, string>('req');
    const ids: string[] = [];
    const results = ['a', 'b', 'c'].map((r) => pending.open('s1', r, undefined, (id) => ids.push(id)));
    expect(pending.list('s1').map((p) => p.request)).toEqual(['a', 'b', 'c']);
    expect(pending.settle('s1', ids[1]!, 'yes-b')).toBe(true);
    expect(pending.settle('s1', ids[1]!, 'again')).toBe(false);
    expect(pending.settle('other-session', ids[0]!, 'x')).toBe(false);
    expect(pending.list('s1').map((p) => p.request)).toEqual(['a', 'c']);
    expect(await results[1]).toEqual({ id: ids[1], answer: 'yes-b' });
    pending.cancelAll();
    expect(await results[0]).toEqual({ id: ids[0], answer: 'cancelled' });
    expect(pending.list('s1')).toEqual([]);
  });

  it('cancels a request when its signal aborts, even one aborted already', async () => {
    const pending = new PendingRequests<string, string>('req');
    const controller = new AbortController();
    const waiting = pending.open('s1', 'a', controller.signal, () => {});
    controller.abort();
    expect((await waiting).answer).toBe('cancelled');
    expect((await pending.open('s1', 'b', controller.signal, () => {})).answer).toBe('cancelled');
    expect(pending.list('s1')).toEqual([]);
  });
});
