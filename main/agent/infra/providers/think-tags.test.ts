import { describe, expect, it } from 'vitest';
import { ThinkTagSplitter } from './think-tags';

function run(chunks: string[]) {
  const s = new ThinkTagSplitter();
  const parts = [...chunks.flatMap((c) => s.push(c)), ...s.flush()];
  return {
    thinking: parts
      .filter((p) => p.thinking)
      .map((p) => p.text)
      .join(''),
    text: parts
      .filter((p) => !p.thinking)
      .map((p) => p.text)
      .join(''),
  };
}

describe('ThinkTagSplitter', () => {
  it('splits a leading <think> block even when tags are cut across chunks', () => {
    expect(run(['<thi', 'nk>plan it', '</th', 'ink>\n\nAnswer'])).toEqual({ thinking: 'plan it', text: 'Answer' });
  });
  it('leaves ordinary text alone, including a later <think> mention', () => {
    expect(run(['Use the ', '<think> tag'])).toEqual({ thinking: '', text: 'Use the <think> tag' });
  });
  it('keeps an unterminated think block as thinking', () => {
    expect(run(['<think>still going'])).toEqual({ thinking: 'still going', text: '' });
  });
});
