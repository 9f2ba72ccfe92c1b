import { describe, expect, it } from 'vitest';
import { uniqueCallIds } from './turn';

const call = (id: string) => ({ id, name: 'Echo', arguments: '{}' });

describe('uniqueCallIds', () => {
  it('renames an id the session used, one the history holds, one repeated in the same response, and a missing one', () => {
    const used = new Set(['call_0']);
    const history = [{ role: 'assistant' as const, content: '', toolCalls: [call('call_1')] }];
    const ids = uniqueCallIds([call('call_0'), call('call_1'), call('call_2'), call('call_2'), call('')], history, used).map((c) => c.id);
    expect(ids[0]).toMatch(/^call_0_[0-9a-f]{8}$/);
    expect(ids[1]).toMatch(/^call_1_[0-9a-f]{8}$/);
    expect(ids[2]).toBe('call_2');
    expect(ids[3]).toMatch(/^call_2_[0-9a-f]{8}$/);
    expect(ids[4]).toMatch(/^call_[0-9a-f]{8}$/);
    expect(new Set(ids).size).toBe(5);
    // The session's set is read, never changed.
    expect([...used]).toEqual(['call_0']);
  });
});
