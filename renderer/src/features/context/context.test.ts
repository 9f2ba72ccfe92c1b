import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../../protocol';
import { applyEvents, emptyTranscript } from '../../stores/transcript';
import { parseContextCommand } from './context-command';
import { formatTokens } from './history';

const base = { sessionId: 's', at: 0 };

describe('/compact and /undo in the composer', () => {
  it('parses both, with their arguments, and nothing else', () => {
    expect(parseContextCommand('/compact')).toEqual({ kind: 'compact', instructions: '' });
    expect(parseContextCommand('  /compact keep the API names\nand the paths ')).toEqual({ kind: 'compact', instructions: 'keep the API names\nand the paths' });
    expect(parseContextCommand('/undo')).toEqual({ kind: 'undo', count: 1 });
    expect(parseContextCommand('/undo 3')).toEqual({ kind: 'undo', count: 3 });
    expect(parseContextCommand('/undo two')).toMatchObject({ kind: 'invalid', message: expect.stringContaining('Usage: /undo [n]') });
    expect(parseContextCommand('/undo 0')).toMatchObject({ kind: 'invalid' });
    expect(parseContextCommand('/undo 101')).toMatchObject({ kind: 'invalid' });
    expect(parseContextCommand('/compactor')).toBeNull();
    expect(parseContextCommand('/undone')).toBeNull();
    expect(parseContextCommand('please /undo')).toBeNull();
  });

  it('formats token counts briefly', () => {
    expect([950, 1_234, 9_960, 12_400, 128_000].map(formatTokens)).toEqual(['950', '1.2k', '10k', '12k', '128k']);
  });
});

describe('transcript: compaction and undo', () => {
  it('shows a running compaction, then the compacted notice with its note; the composer knows while it runs', () => {
    const started: SessionEvent = { ...base, seq: 1, type: 'compaction.started', compactionId: 'c1', trigger: 'manual', tokensBefore: 90_000, contextWindow: 128_000 };
    const running = applyEvents(emptyTranscript, [started]);
    expect(running.history.compacting).toBe('c1');
    expect(running.items).toEqual([{ kind: 'compaction', id: 'compaction:c1', trigger: 'manual', status: 'running', tokensBefore: 90_000, contextWindow: 128_000 }]);
    const done = applyEvents(running, [
      { ...base, seq: 2, type: 'compaction.ended', compactionId: 'c1', trigger: 'manual', outcome: 'compacted', note: 'I did things.', tokensBefore: 90_000, tokensAfter: 4_000, keptMessages: 2, reattached: [{ feature: 'todo', count: 1 }] },
    ]);
    expect(done.history.compacting).toBeNull();
    expect(done.items).toHaveLength(1);
    expect(done.items[0]).toMatchObject({ status: 'compacted', note: 'I did things.', tokensAfter: 4_000, keptMessages: 2 });
  });

  it('greys undone turns (their items stay) and says that files were not restored', () => {
    const events: SessionEvent[] = [
      { ...base, seq: 1, type: 'turn.started', turnId: 't1', text: 'one', attachments: [], origin: 'user' },
      { ...base, seq: 2, type: 'turn.ended', turnId: 't1', stopReason: 'end_turn', durationMs: 1 },
      { ...base, seq: 3, type: 'turn.started', turnId: 't2', text: 'two', attachments: [], origin: 'user' },
      { ...base, seq: 4, type: 'turn.ended', turnId: 't2', stopReason: 'end_turn', durationMs: 1 },
      { ...base, seq: 5, type: 'turns.undone', turnIds: ['t2'] },
    ];
    const state = applyEvents(emptyTranscript, events);
    expect(state.history.undone).toEqual({ t2: true });
    expect(state.items.map((i) => i.kind)).toEqual(['user', 'user', 'notice']);
    expect(state.items[2]).toMatchObject({ kind: 'notice', text: expect.stringContaining('Files changed in that turn were not restored.') });
  });
});
