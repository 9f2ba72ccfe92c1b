import { performance } from 'node:perf_hooks';
import { toAnthropicMessages, withCacheBreakpoints } from '../main/agent/infra/providers/anthropic';
import { toWireMessages } from '../main/agent/infra/providers/openai-compatible';
import type { ModelMessage } from '../main/agent/contract/model';
import { type BenchResult, median } from './types';

const PARAGRAPH = 'The loop reads the file, finds the call site and changes it; the tests then run again. ';

/** A history of `turns` turns: prompt, an answer with a Read call, the file's text, and a Markdown answer. */
function historyOf(turns: number): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (let t = 0; t < turns; t++) {
    const file = Array.from({ length: 60 }, (_, i) => `${i + 1}\texport const value${t}_${i} = compute(${i});`).join('\n');
    messages.push(
      { role: 'user', content: `Turn ${t}: change the handler and run the tests.` },
      { role: 'assistant', content: 'Let me read it first.', toolCalls: [{ id: `c${t}`, name: 'Read', arguments: JSON.stringify({ path: `src/m${t}.ts` }) }] },
      { role: 'tool', toolCallId: `c${t}`, toolName: 'Read', content: file },
      { role: 'assistant', content: `## Part ${t}\n\n${PARAGRAPH.repeat(6)}\n\n\`\`\`ts\nexport const x = ${t};\n\`\`\`\n` },
    );
  }
  return messages;
}

const timeIt = (fn: () => unknown) =>
  median(15, async () => {
    const t0 = performance.now();
    fn();
    return performance.now() - t0;
  });

/**
 * What writing a step's request body costs as the history grows (issue 19, "Requests"): the body built and
 * stringified from the history, as every step does, beside only concatenating the messages' JSON written
 * beforehand — the least any request must cost, since its bytes have to be produced to be sent.
 */
export default async function requestBody(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const messages of [200, 2_000]) {
    const history = historyOf(messages / 4);
    const openai = () => JSON.stringify({ model: 'm', messages: toWireMessages('You are Deft.', history), stream: true });
    const anthropic = () => JSON.stringify({ model: 'm', system: 'You are Deft.', messages: withCacheBreakpoints(toAnthropicMessages(history)), stream: true });
    const written = toWireMessages('You are Deft.', history).map((m) => JSON.stringify(m));
    const concatenate = () => `{"model":"m","messages":[${written.join(',')}],"stream":true}`;
    if (concatenate() !== openai()) throw new Error('the concatenated body differs from the built one');
    const bytes = openai().length;
    results.push({
      name: `request body after ${messages.toLocaleString('en')} messages (OpenAI format), built from the history`,
      value: await timeIt(openai),
      unit: 'ms',
      baseline: { name: 'concatenating the messages’ JSON written beforehand', value: await timeIt(concatenate) },
      note: `${(bytes / 2 ** 20).toFixed(2)} MiB sent; Anthropic format built: ${(await timeIt(anthropic)).toFixed(2)} ms`,
    });
  }
  return results;
}
