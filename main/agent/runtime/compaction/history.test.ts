import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '#contract/model';
import { OLDEST_HEAD_TOKENS, RECENT_USER_TOKENS, compactedHistory, recentUserMessages } from './history';
import { ContextMeter, estimateMessages, estimateTokens } from './tokens';

const prompt = (turnId: string, content: string): ModelMessage => ({ role: 'user', content, turnId });
const words = (n: number) => 'word '.repeat(n).trim(); // 5 bytes a word: ~1.25 tokens

describe('recent user messages kept by a compaction', () => {
  it('keeps only turn prompts, oldest first, and leaves out what is re-attached', () => {
    const context: ModelMessage[] = [
      prompt('t1', 'first'),
      { role: 'assistant', content: 'answer' },
      { role: 'user', content: '<notification>task done</notification>' },
      prompt('t2', 'SKILL BLOCK'),
      prompt('t3', 'third'),
    ];
    expect(recentUserMessages(context, new Set(['SKILL BLOCK']))).toEqual([prompt('t1', 'first'), prompt('t3', 'third')]);
  });

  it('fits whole prompts newest first within the budget less the reserve, then the head of the next older one', () => {
    const big = words(8_000); // ~10,000 tokens
    const context = [prompt('t1', 'oldest, never reached'), prompt('t2', big), prompt('t3', big), prompt('t4', 'latest')];
    const kept = recentUserMessages(context, new Set());
    expect(kept.map((m) => (m as { turnId: string }).turnId)).toEqual(['t2', 't3', 't4']);
    expect(kept[1]!.content).toBe(big);
    const head = kept[0]!.content as string;
    expect(head).toMatch(/^word word/);
    expect(head).toMatch(/\[… the rest of this message \([\d,]+ characters\) was cut when the conversation was compacted\]$/);
    const total = kept.reduce((sum, m) => sum + estimateTokens(m.content as string), 0);
    expect(total).toBeLessThanOrEqual(RECENT_USER_TOKENS);
    expect(estimateTokens(head)).toBeGreaterThan(OLDEST_HEAD_TOKENS / 2);
  });

  it('cuts even the newest prompt when it alone is over the budget, without breaking a character', () => {
    const huge = '日本語のテキスト'.repeat(20_000);
    const kept = recentUserMessages([prompt('t1', huge)], new Set());
    expect(kept).toHaveLength(1);
    expect(kept[0]!.content as string).not.toContain('\uFFFD');
    expect(estimateTokens(kept[0]!.content as string)).toBeLessThanOrEqual(RECENT_USER_TOKENS);
  });

  it('builds the new history: recent prompts, the note, then the re-attached messages', () => {
    const history = compactedHistory(
      [prompt('t1', 'do it'), { role: 'assistant', content: 'done', toolCalls: [{ id: 'c', name: 'X', arguments: '{}' }] }],
      'I did it.',
      ['TODO'],
    );
    expect(history.map((m) => m.role)).toEqual(['user', 'user', 'user']);
    expect(history[0]).toEqual(prompt('t1', 'do it'));
    expect(history[1]!.content).toMatch(/<handoff-note>\nI did it\.\n<\/handoff-note>$/);
    expect(history[2]).toEqual({ role: 'user', content: 'TODO' });
  });
});

describe('context meter', () => {
  it("uses the provider's count for the context it measured, plus estimates for what came after; estimates otherwise", () => {
    const meter = new ContextMeter();
    const context: ModelMessage[] = [prompt('t1', 'hi'), { role: 'assistant', content: 'hello' }];
    expect(meter.used(context, 'system prompt')).toBe(estimateTokens('system prompt') + estimateMessages(context));
    meter.note({ inputTokens: 5_000, outputTokens: 300 }, context);
    expect(meter.used(context, 'ignored')).toBe(5_300);
    context.push({ role: 'tool', toolCallId: 'c', toolName: 'Read', content: 'x'.repeat(4_000) });
    expect(meter.used(context, 'ignored')).toBe(5_300 + 4 + 1_000);
    // Another array (a compaction, an undo, a reload): the count no longer applies.
    const compacted = [prompt('t1', 'hi')];
    expect(meter.used(compacted, '')).toBe(estimateMessages(compacted));
    meter.note({ inputTokens: 10, outputTokens: 0 }, compacted);
    meter.reset();
    expect(meter.used(compacted, '')).toBe(estimateMessages(compacted));
  });

  it('counts images and tool-call arguments', () => {
    expect(
      estimateMessages([{ role: 'tool', toolCallId: 'c', toolName: 'ReadMediaFile', content: [{ type: 'image', mimeType: 'image/png', data: 'AAAA' }] }]),
    ).toBe(4 + 1_600);
    expect(estimateMessages([{ role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'Read', arguments: '{"path":"a.ts"}' }] }])).toBe(4 + 1 + 4);
  });
});
