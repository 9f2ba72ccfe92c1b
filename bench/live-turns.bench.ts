import { readFileSync } from 'node:fs';
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type CDPSession, type Page, chromium } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from '../scripts/chromium.mjs';
import { ensureBuild } from '../scripts/ensure-build.mjs';
import { tempDir } from '../test-support/harness';
import { callChunk, textReply, toolStep } from '../test-support/mock-steps';
import { workspaceSessionsDir } from '../main/agent/infra/sessions/store';
import { longAnswer } from '../test-support/long-answer';
import { type MockReply, MockModelServer, type RecordedRequest } from '../test-support/mock-model-server';
import type { BenchResult } from './types';
import { type BenchHost, processRss, startBenchHost } from './web-host';

/** Turns driven (DEFT_BENCH_LIVE_TURNS for a quicker look; a multiple of 25, at least 75). */
const TURNS = Number(process.env.DEFT_BENCH_LIVE_TURNS ?? 300);
const SAMPLE_EVERY = 25;
/** Small enough that auto-compaction runs every few dozen turns (each turn adds about 2,000 tokens). */
const CONTEXT_WINDOW = 64_000;
const FILES = 6;
const MiB = 1024 * 1024;

interface Sample {
  turn: number;
  hostRss: number;
  hostHeap: number;
  rendererHeap: number;
  domNodes: number;
  logBytes: number;
}

/** A workspace source file of about 10 KB with a revision line the turns' Edits bump. */
function moduleSource(k: number): string {
  const body = Array.from({ length: 110 }, (_, i) => `export function helper${k}_${i}(input: string): string { return input.trim() + '${k}-${i}'; }`);
  return [`// Module ${k} of the live-turns benchmark.`, 'export const revision = 0;', ...body].join('\n') + '\n';
}

const textOf = (content: unknown): string =>
  typeof content === 'string' ? content : Array.isArray(content) ? content.map((p) => (p as { text?: string }).text ?? '').join('') : '';

/**
 * The model's side of every turn: the prompt gets a Read of a workspace module, its result an Edit of that
 * module's revision line, and the Edit's result a Markdown answer with code that names the turn. A compaction
 * request gets a handoff note.
 */
function modelScript(workspace: string, counts: { compactions: number }): (request: RecordedRequest) => MockReply {
  return (request) => {
    const messages = request.body.messages;
    const last = messages.at(-1);
    const turn = Number(
      [...messages]
        .reverse()
        .map((m) => (m.role === 'user' ? /^Turn (\d+):/.exec(textOf(m.content)) : null))
        .find(Boolean)?.[1] ?? 0,
    );
    const path = `src/module-${turn % FILES}.ts`;
    if (last?.role === 'user' && textOf(last.content).includes('about to be compacted')) {
      counts.compactions++;
      return textReply(`## Goal\nI am tidying the modules one turn at a time; I was at turn ${turn}.\n\n## Next\nCarry on with the next module.`);
    }
    if (last?.role === 'tool') {
      const calls = [...messages].reverse().find((m) => m.role === 'assistant' && m.tool_calls?.length)?.tool_calls as
        | Array<{ function: { name: string } }>
        | undefined;
      if (calls?.[0]?.function.name === 'Read') {
        // The module's revision line as it is on disk now (the mock answers synchronously).
        const line = /^export const revision = (\d+);$/m.exec(readFileSync(join(workspace, path), 'utf8'))!;
        return toolStep(callChunk('Edit', { path, old_string: line[0], new_string: `export const revision = ${Number(line[1]) + 1};` }));
      }
      return textReply(`${longAnswer(1_200)}\n\nTurn ${turn} is done: \`${path}\` is at its next revision.`);
    }
    return toolStep(callChunk('Read', { path }));
  };
}

/** DEFT_BENCH_HEAP_SNAPSHOTS=dir: the page's heap snapshot at every sample (diff two to see what grows). */
async function pageSnapshot(cdp: CDPSession, file: string): Promise<void> {
  const chunks: string[] = [];
  const collect = ({ chunk }: { chunk: string }) => void chunks.push(chunk);
  cdp.on('HeapProfiler.addHeapSnapshotChunk', collect);
  await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  cdp.off('HeapProfiler.addHeapSnapshotChunk', collect);
  await writeFile(file, chunks.join(''));
}

/** Used JS heap of the page after a full GC, and its DOM node count. */
async function rendererMemory(cdp: CDPSession): Promise<{ heap: number; nodes: number }> {
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  const { nodes } = await cdp.send('Memory.getDOMCounters');
  return { heap: usedSize, nodes };
}

async function logSize(home: string, workspace: string): Promise<number> {
  const dir = workspaceSessionsDir(home, workspace);
  let total = 0;
  for (const id of await readdir(dir).catch(() => [])) {
    for (const file of await readdir(join(dir, id)).catch(() => [])) total += (await stat(join(dir, id, file))).size;
  }
  return total;
}

/** The little of the page's globals the benchmark reads (bench/ is compiled without the DOM types). */
interface PageGlobals {
  document: {
    querySelectorAll(selector: string): ArrayLike<{ getAttribute(name: string): string | null; textContent: string | null }>;
    querySelector(selector: string): object | null;
  };
}

/** Send turn `n`'s prompt and wait until its answer is on screen and nothing streams. */
async function runTurn(page: Page, n: number): Promise<number> {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(`Turn ${n}: tidy up the next module and explain the change.`);
  const t0 = performance.now();
  await box.press('Enter');
  // Polled every 50 ms and cheaply (the last answer only), so the check costs the same at turn 1 and 300.
  await page.waitForFunction(
    (marker) => {
      const doc = (globalThis as unknown as PageGlobals).document;
      const answers = doc.querySelectorAll('article[aria-label="Assistant message"]');
      const last = answers[answers.length - 1];
      // The turn has ended when the composer offers Send again (while a turn runs it offers Stop, and Enter does nothing).
      const idle = doc.querySelector('button[aria-label="Send"]') !== null;
      return idle && !!last && last.getAttribute('aria-busy') !== 'true' && (last.textContent ?? '').includes(marker);
    },
    `Turn ${n} is done`,
    { polling: 50, timeout: 60_000 },
  );
  return performance.now() - t0;
}

/** Least-squares slope of `value` over `turn` (bytes a turn). */
function slope(points: ReadonlyArray<{ turn: number; value: number }>): number {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.turn, 0) / n;
  const my = points.reduce((s, p) => s + p.value, 0) / n;
  const num = points.reduce((s, p) => s + (p.turn - mx) * (p.value - my), 0);
  const den = points.reduce((s, p) => s + (p.turn - mx) ** 2, 0);
  return num / den;
}

const medianOf = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const mib = (bytes: number) => (bytes / MiB).toFixed(1);

/**
 * 300 live turns through the web host in Chromium (issue 19): each turn a prompt, a Read and an Edit of a
 * workspace module and a Markdown answer with code, in a context window small enough that auto-compaction runs
 * every few dozen turns. Every 25 turns: the host's RSS and heap after GC, the page's JS heap after GC.
 * Value: growth a turn from turn 50 to the end (least squares over the samples). Baseline: what a turn adds to
 * the session log on disk over the same turns — what memory would grow by if the host or page kept all of it.
 */
export default async function liveTurns(): Promise<BenchResult[]> {
  if (!Number.isInteger(TURNS / SAMPLE_EVERY) || TURNS < 75) throw new Error(`DEFT_BENCH_LIVE_TURNS must be a multiple of ${SAMPLE_EVERY}, at least 75`);
  ensureBuild();
  const executablePath = findChromium();
  if (!executablePath) throw new Error('No Chromium found for the live-turns benchmark (set DEFT_CHROMIUM).');
  const counts = { compactions: 0 };
  const home = await tempDir('deft-bench-home-');
  const workspace = await tempDir('deft-bench-ws-');
  await mkdir(join(workspace, 'src'));
  for (let k = 0; k < FILES; k++) await writeFile(join(workspace, 'src', `module-${k}.ts`), moduleSource(k));
  const mock = new MockModelServer();
  await mock.start();
  mock.fallback = modelScript(workspace, counts);
  await writeFile(
    join(home, 'settings.json'),
    JSON.stringify({
      provider: { kind: 'openai', baseUrl: mock.baseUrl, model: 'mock-model', apiKey: 'sk-bench', contextWindow: CONTEXT_WINDOW },
      permissions: { defaultMode: 'accept-edits' },
      checkpoints: { enabled: false },
    }),
  );
  let host: BenchHost | null = null;
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  try {
    host = await startBenchHost(workspace, home, { inspect: true });
    const inspector = host.inspector!;
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(host.url);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    const cdp = await page.context().newCDPSession(page);
    const snapshots = process.env.DEFT_BENCH_HEAP_SNAPSHOTS;
    const samples: Sample[] = [];
    const times: number[] = [];
    const started = performance.now();
    for (let n = 1; n <= TURNS; n++) {
      times.push(
        await runTurn(page, n).catch(async (error: Error) => {
          // What the turn was doing: the requests the model got in it and the page as it was.
          const seen = mock.requests.map((r) =>
            r.body.messages
              .slice(-2)
              .map((m) => `${m.role}: ${textOf(m.content).slice(0, 160)}`)
              .join(' | '),
          );
          const shot = join(tmpdir(), `deft-live-turns-${n}.png`);
          await page.screenshot({ path: shot }).catch(() => {});
          throw new Error(`turn ${n} did not finish (${error.message}); screenshot ${shot}; the model's requests in it:\n${seen.join('\n')}`);
        }),
      );
      // The mock keeps every request it served; this benchmark does not need them.
      mock.requests.splice(0);
      if (n % SAMPLE_EVERY === 0) {
        const renderer = await rendererMemory(cdp);
        if (snapshots) {
          await pageSnapshot(cdp, join(snapshots, `page-${n}.heapsnapshot`));
          await writeFile(join(snapshots, `host-${n}.heapsnapshot`), await inspector.heapSnapshot());
        }
        const sample: Sample = {
          turn: n,
          hostHeap: await inspector.heapAfterGc(),
          hostRss: await processRss(host.child.pid!),
          rendererHeap: renderer.heap,
          domNodes: renderer.nodes,
          logBytes: await logSize(home, workspace),
        };
        samples.push(sample);
        process.stderr.write(
          `  turn ${n}: host RSS ${mib(sample.hostRss)} MiB, heap ${mib(sample.hostHeap)} MiB; page heap ${mib(sample.rendererHeap)} MiB, ${sample.domNodes} DOM nodes; log ${mib(sample.logBytes)} MiB; ${counts.compactions} compactions; last turn ${times.at(-1)!.toFixed(0)} ms\n`,
        );
      }
    }
    const totalSeconds = (performance.now() - started) / 1000;
    // Every Edit that landed on disk bumped a module's revision: what is missing failed.
    let revisions = 0;
    for (let k = 0; k < FILES; k++)
      revisions += Number(/^export const revision = (\d+);$/m.exec(readFileSync(join(workspace, 'src', `module-${k}.ts`), 'utf8'))?.[1]);
    const failedEdits = TURNS - revisions;
    const from50 = samples.filter((s) => s.turn >= 50);
    const at = (turn: number) => samples.find((s) => s.turn === turn)!;
    const end = samples.at(-1)!;
    const logPerTurn = (end.logBytes - at(50).logBytes) / (end.turn - 50);
    const perTurn = (key: 'hostRss' | 'hostHeap' | 'rendererHeap') => slope(from50.map((s) => ({ turn: s.turn, value: s[key] })));
    const early = (key: 'hostRss' | 'hostHeap' | 'rendererHeap') => (at(50)[key] - at(25)[key]) / 25;
    // The second half on its own: what still grows once the JIT has compiled the hot code (which takes the
    // page's heap some 600 KiB up over the first ~250 turns) and the window has let go of rows many times.
    const half = Math.ceil(TURNS / 2 / SAMPLE_EVERY) * SAMPLE_EVERY;
    const late = (key: 'hostRss' | 'hostHeap' | 'rendererHeap') => slope(samples.filter((s) => s.turn >= half).map((s) => ({ turn: s.turn, value: s[key] })));
    const baseline = { name: 'session log bytes a turn, same turns', value: logPerTurn / 1024 };
    const growth = (key: 'hostRss' | 'hostHeap' | 'rendererHeap') =>
      `${mib(at(50)[key])} MiB at turn 50 → ${mib(end[key])} MiB at turn ${end.turn}; turns 25→50: ${(early(key) / 1024).toFixed(1)} KiB a turn; turns ${half}→${end.turn}: ${(late(key) / 1024).toFixed(1)} KiB a turn`;
    const firstTimes = times.slice(0, SAMPLE_EVERY);
    const lastTimes = times.slice(-SAMPLE_EVERY);
    const run = `${TURNS} turns in ${totalSeconds.toFixed(0)} s, ${counts.compactions} auto-compactions, ${failedEdits} failed Edits, ${end.domNodes} DOM nodes at the end`;
    return [
      {
        name: `${TURNS} live turns: host heap growth a turn, turns 50→${TURNS}`,
        value: perTurn('hostHeap') / 1024,
        unit: 'KiB',
        baseline,
        note: `${growth('hostHeap')}; ${run}`,
      },
      {
        name: `${TURNS} live turns: host RSS growth a turn, turns 50→${TURNS}`,
        value: perTurn('hostRss') / 1024,
        unit: 'KiB',
        baseline,
        note: growth('hostRss'),
      },
      {
        name: `${TURNS} live turns: renderer JS heap growth a turn, turns 50→${TURNS}`,
        value: perTurn('rendererHeap') / 1024,
        unit: 'KiB',
        baseline,
        note: growth('rendererHeap'),
      },
      {
        name: `${TURNS} live turns: time a turn, last ${SAMPLE_EVERY} turns (median)`,
        value: medianOf(lastTimes),
        unit: 'ms',
        baseline: { name: `first ${SAMPLE_EVERY} turns (median)`, value: medianOf(firstTimes) },
        note: `slowest of the last ${SAMPLE_EVERY}: ${Math.max(...lastTimes).toFixed(0)} ms, of the first: ${Math.max(...firstTimes).toFixed(0)} ms`,
      },
    ];
  } finally {
    await browser.close();
    await host?.stop();
    await mock.close();
    await Promise.all([home, workspace].map((d) => rm(d, { recursive: true, force: true })));
  }
}
