import { performance } from 'node:perf_hooks';
import type { SessionEvent } from '../protocol';
import { reduce } from '../renderer/src/stores/session-slice';
import { emptyTranscript, transcriptSlice } from '../renderer/src/stores/transcript';
import { longAnswer } from '../test-support/long-answer';
import { type BenchResult, median } from './types';

const ANSWER = longAnswer(1_200);

/** A session of `messages` messages (a prompt and an answer per turn) as the window replays it: a Read and an Edit per turn, the answer streamed in pieces. */
function sessionEvents(messages: number): SessionEvent[] {
  const events: SessionEvent[] = [];
  let seq = 0;
  const ev = (e: Record<string, unknown>) => events.push({ ...e, sessionId: 's', seq: ++seq, at: 1_700_000_000_000 + seq } as unknown as SessionEvent);
  for (let t = 0; t < messages / 2; t++) {
    const turnId = `turn-${t}`;
    ev({ type: 'turn.started', turnId, text: `Question ${t}: how does part ${t} work?`, attachments: [], origin: 'user' });
    ev({ type: 'assistant.delta', turnId, step: 1, text: 'Let me look at the code first.' });
    ev({ type: 'step.ended', turnId, step: 1, finishReason: 'tool_use' });
    ev({
      type: 'tool.call.started',
      turnId,
      step: 1,
      callId: `read-${t}`,
      name: 'Read',
      args: { path: `src/part${t}.ts` },
      description: `Reading src/part${t}.ts`,
      display: { kind: 'file_io', operation: 'read', path: `src/part${t}.ts` },
    });
    ev({
      type: 'tool.call.result',
      turnId,
      callId: `read-${t}`,
      name: 'Read',
      isError: false,
      output: `export const part = ${t};\n`.repeat(40),
      durationMs: 3,
    });
    ev({
      type: 'tool.call.started',
      turnId,
      step: 1,
      callId: `edit-${t}`,
      name: 'Edit',
      args: { path: `src/part${t}.ts` },
      description: `Editing src/part${t}.ts`,
      display: { kind: 'generic', summary: 'edit' },
    });
    const hunks = [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: [`-export const part = ${t};`, `+export const part = ${t + 1};`] }];
    ev({
      type: 'tool.call.result',
      turnId,
      callId: `edit-${t}`,
      name: 'Edit',
      isError: false,
      output: 'Edited.',
      display: { kind: 'diff', path: `src/part${t}.ts`, before: '', after: '', hunks, added: 1, removed: 1 },
      durationMs: 2,
    });
    for (let at = 0; at < ANSWER.length; at += 400) ev({ type: 'assistant.delta', turnId, step: 2, text: ANSWER.slice(at, at + 400) });
    ev({ type: 'step.ended', turnId, step: 2, finishReason: 'end_turn' });
    ev({ type: 'turn.ended', turnId, stopReason: 'end_turn', durationMs: 10 });
  }
  return events;
}

/** The window's transcript reducer replaying a long session in one batch, beside a 2-message one: the cost per event should not grow with the session. */
export default async function transcriptReplayBench(): Promise<BenchResult[]> {
  const time = (events: SessionEvent[]) =>
    median(5, async () => {
      const t0 = performance.now();
      reduce(transcriptSlice, emptyTranscript, events);
      return performance.now() - t0;
    });
  const small = sessionEvents(2);
  const mid = sessionEvents(500);
  const big = sessionEvents(5_000);
  await time(mid); // warm up
  const [smallMs, midMs, bigMs] = [await time(small), await time(mid), await time(big)];
  const perEvent = (ms: number, n: number) => (ms * 1000) / n;
  return [
    {
      name: `transcript reducer: replay 5,000 messages (${big.length.toLocaleString('en-US')} events), per event`,
      value: perEvent(bigMs, big.length),
      unit: 'µs',
      baseline: { name: `2 messages (${small.length} events)`, value: perEvent(smallMs, small.length) },
      note: `in all ${bigMs.toFixed(0)} ms; 500 messages: ${midMs.toFixed(1)} ms (${perEvent(midMs, mid.length).toFixed(2)} µs/event)`,
    },
  ];
}
