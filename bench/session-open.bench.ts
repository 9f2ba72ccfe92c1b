import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type CDPSession, chromium, type Page } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from '../scripts/chromium.mjs';
import { ensureBuild } from '../scripts/ensure-build.mjs';
import { tempDir } from '../test-support/harness';
import { META_FILE, Session, type SessionMeta } from '../main/agent/infra/sessions/session';
import { generateSession } from './generate-session';
import type { BenchResult } from './types';
import { processCpu, processRss, startBenchHost } from './web-host';

const SIZES = [500, 2_000, 5_000];
/** Sessions with realistic tool output in the tail (a 400-line command output in each of the last 500 turns), opened the same way. */
const HEAVY = [5_000, 20_000];
const HEAVY_LINES = 400;
const HEAVY_TURNS = 500;
const heavyTitle = (messages: number) => `Bench ${messages} messages with command output`;
const RUNS = 3;
const MiB = 1024 * 1024;

const title = (messages: number) => `Bench ${messages} messages`;
const lastAnswer = (messages: number) => `In short: part ${messages / 2 - 1} is done.`;

/**
 * Long tasks of the page, recorded from its start (installed before any of its scripts runs); and when the reply
 * to an openSession that resets the view (a tail) reached the page, in the page's clock: Playwright's own WebSocket
 * frame events arrive through the driver process, hundreds of ms late on a busy machine.
 */
const RECORD_LONG_TASKS = `
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__longTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: 'longtask', buffered: true });
  window.__tailReplyAt = 0;
  const NativeWebSocket = window.WebSocket;
  window.WebSocket = class extends NativeWebSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (event) => {
        if (typeof event.data === 'string' && event.data.includes('"reset":true') && event.data.includes('"earlier"')) window.__tailReplyAt = performance.now();
      });
    }
  };
`;

/** The page's main-thread CPU so far (ms): all its tasks, and the JavaScript in them. */
async function pageCpu(cdp: CDPSession): Promise<{ task: number; script: number }> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  const value = (name: string) => (metrics.find((m) => m.name === name)?.value ?? 0) * 1_000;
  return { task: value('TaskDuration'), script: value('ScriptDuration') };
}

/**
 * Wait until the page is idle (its idle callbacks get most of a 50 ms period, three in a row: the window's
 * idle-time warm-ups are done), at most 10 s, as a person takes a moment to find the session to open.
 */
async function settle(page: Page): Promise<number> {
  return page.evaluate(async () => {
    type Idle = (run: (deadline: { timeRemaining(): number }) => void) => number;
    const requestIdle = (globalThis as unknown as { requestIdleCallback: Idle }).requestIdleCallback;
    const start = performance.now();
    let quiet = 0;
    while (quiet < 3 && performance.now() - start < 10_000) {
      const left = await new Promise<number>((resolve) => requestIdle((deadline) => resolve(deadline.timeRemaining())));
      quiet = left >= 40 ? quiet + 1 : 0;
    }
    return performance.now() - start;
  });
}

/**
 * Click a session in the sidebar; the time until its last answer is on screen and the longest task meanwhile;
 * with `cdp`, the page's CPU over it, and with `profilePath` its CPU profile (open it in DevTools).
 */
async function open(
  page: Page,
  messages: number,
  heavy = false,
  cdp?: CDPSession,
  profilePath?: string,
): Promise<{ ms: number; longestTask: number; replyAfter: number; pageTask: number; pageScript: number }> {
  const cpuBefore = cdp ? await pageCpu(cdp) : null;
  if (cdp && profilePath) await cdp.send('Profiler.start');
  const since = await page.evaluate(() => performance.now());
  const t0 = performance.now();
  await page.locator(`button.session-open[title="${heavy ? heavyTitle(messages) : title(messages)}"]`).click();
  await page.getByText(lastAnswer(messages), { exact: true }).waitFor({ state: 'visible', timeout: 60_000 });
  const ms = performance.now() - t0;
  const cpuAfter = cdp ? await pageCpu(cdp) : null;
  if (cdp && profilePath) await writeFile(profilePath, JSON.stringify((await cdp.send('Profiler.stop')).profile));
  // Long tasks are reported a little after they end.
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
  const replyAt = await page.evaluate(() => (globalThis as unknown as { __tailReplyAt: number }).__tailReplyAt);
  const longestTask = await page.evaluate(
    (from) =>
      Math.max(
        0,
        ...(globalThis as unknown as { __longTasks: { start: number; duration: number }[] }).__longTasks
          .filter((t) => t.start + t.duration >= from)
          .map((t) => t.duration),
      ),
    since,
  );
  return {
    ms,
    longestTask,
    replyAfter: replyAt - since,
    pageTask: cpuAfter && cpuBefore ? cpuAfter.task - cpuBefore.task : 0,
    pageScript: cpuAfter && cpuBefore ? cpuAfter.script - cpuBefore.script : 0,
  };
}

interface HeavyFigures {
  cold: number;
  warm: number[];
  /** The host's CPU time over the cold open, and over each warm one (ms). */
  coldCpu: number;
  /** The same until the host is idle again (it may load the session on after the window shows its tail). */
  coldCpuSettled: number;
  /** From the click until the host's reply (the tail) reached the page, cold (ms, the page's clock), and warm. */
  coldReply: number;
  warmReply: number[];
  warmCpu: number[];
  /** The page's main-thread CPU (all its tasks; the JavaScript in them) over the cold open, and each warm one (ms). */
  coldPage: { task: number; script: number };
  warmPage: { task: number; script: number }[];
  longestTask: number[];
  /** From the 2-message session on screen until the page was idle (its warm-ups done), and the page's CPU meanwhile (ms). */
  settleMs: number;
  settleCpu: number;
  /** Host RSS with the 2-message session open (the newest: the window opened it), then after the heavy one. */
  smallRss: number;
  rss: number;
  /** The host's used heap after a full GC (read after its RSS), the same two moments. */
  smallHeap: number;
  heap: number;
  logMiB: number;
}

/**
 * A host of its own with a 2-message session (the newest, so the window opens it first) and one of `messages`
 * messages with realistic tool output in the tail: its first (cold) open, warm opens, and the host's RSS before and after.
 */
async function openHeavy(executablePath: string, messages: number, snapshot: boolean): Promise<HeavyFigures> {
  const home = await tempDir('deft-bench-home-');
  const workspace = await tempDir('deft-bench-ws-');
  const { dir } = await generateSession({
    home,
    workspace,
    id: `heavy-${messages}`,
    turns: messages / 2,
    toolCalls: true,
    title: heavyTitle(messages),
    commandOutput: { lines: HEAVY_LINES, turns: HEAVY_TURNS },
    updatedAt: 1_700_000_000_000,
  });
  // As Deft leaves the log of a session it let go of (with a snapshot: tail-view.ts), or as a log from before snapshots.
  if (snapshot) {
    const meta = JSON.parse(await readFile(join(dir, META_FILE), 'utf8')) as SessionMeta;
    const { session } = await Session.load(dir, meta, () => meta.updatedAt);
    await session.snapshot();
  }
  const logMiB = (await stat(join(dir, 'log.jsonl'))).size / MiB;
  await generateSession({ home, workspace, id: 'small', turns: 1, toolCalls: false, title: title(2), updatedAt: 1_800_000_000_000 });
  await writeFile(join(home, 'settings.json'), JSON.stringify({ provider: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'bench' } }));
  const host = await startBenchHost(workspace, home, { inspect: true });
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.addInitScript(RECORD_LONG_TASKS);
    await page.goto(host.url);
    await page.getByText(lastAnswer(2), { exact: true }).waitFor({ state: 'visible', timeout: 60_000 });
    const smallRss = await processRss(host.child.pid!);
    const smallHeap = await host.inspector!.heapAfterGc();
    const pid = host.child.pid!;
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    await cdp.send('Profiler.enable');
    // DEFT_BENCH_CPU_PROFILE=folder: the page's CPU profile over each heavy open, cold and warm, and the wait before, written there.
    const profileDir = process.env.DEFT_BENCH_CPU_PROFILE;
    const profile = (run: string) => (profileDir ? join(profileDir, `open-${messages}-${snapshot ? 'snapshot' : 'events'}-${run}.cpuprofile`) : undefined);
    const pageBefore = await pageCpu(cdp);
    if (profileDir) await cdp.send('Profiler.start');
    const settleMs = await settle(page);
    if (profileDir) await writeFile(profile('settle')!, JSON.stringify((await cdp.send('Profiler.stop')).profile));
    const settleCpu = (await pageCpu(cdp)).task - pageBefore.task;
    const cpuBefore = await processCpu(pid);
    // DEFT_BENCH_TRACE=folder: a performance trace of the cold open and of the last warm one (open them in DevTools' Performance panel).
    const traceDir = process.env.DEFT_BENCH_TRACE;
    const trace = (run: string) => join(traceDir!, `open-${messages}-${snapshot ? 'snapshot' : 'events'}-${run}.json`);
    if (traceDir) await browser.startTracing(page, { path: trace('cold'), screenshots: false });
    const cold = await open(page, messages, true, cdp, profile('cold'));
    if (traceDir) await browser.stopTracing();
    const coldCpu = (await processCpu(pid)) - cpuBefore;
    const coldReply = cold.replyAfter;
    // The host may go on loading the session after its tail is on screen: its CPU until it is idle again.
    let settled = await processCpu(pid);
    for (let i = 0; i < 40; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const now = await processCpu(pid);
      if (now - settled < 5) break;
      settled = now;
    }
    const coldCpuSettled = settled - cpuBefore;
    const figures: HeavyFigures = {
      cold: cold.ms,
      warm: [],
      coldCpu,
      coldCpuSettled,
      coldReply,
      warmReply: [],
      warmCpu: [],
      coldPage: { task: cold.pageTask, script: cold.pageScript },
      settleMs,
      settleCpu,
      warmPage: [],
      longestTask: [cold.longestTask],
      smallRss,
      rss: 0,
      smallHeap,
      heap: 0,
      logMiB,
    };
    for (let i = 0; i < RUNS; i++) {
      await open(page, 2);
      const before = await processCpu(pid);
      if (traceDir && i === RUNS - 1) await browser.startTracing(page, { path: trace('warm'), screenshots: false });
      const warm = await open(page, messages, true, cdp, profile(`warm${i + 1}`));
      if (traceDir && i === RUNS - 1) await browser.stopTracing();
      figures.warmCpu.push((await processCpu(pid)) - before);
      figures.warmPage.push({ task: warm.pageTask, script: warm.pageScript });
      figures.warm.push(warm.ms);
      figures.warmReply.push(warm.replyAfter);
      figures.longestTask.push(warm.longestTask);
    }
    figures.rss = await processRss(host.child.pid!);
    figures.heap = await host.inspector!.heapAfterGc();
    return figures;
  } finally {
    await browser.close();
    await host.stop();
    await Promise.all([home, workspace].map((d) => rm(d, { recursive: true, force: true })));
  }
}

/**
 * Opening long sessions in the window (issue 19): a web host with sessions of 2, 500, 2,000 and 5,000
 * messages (prompts, Markdown answers with code, Read and Edit calls), driven in Chromium by clicking each
 * in the sidebar after the 2-message one; and 5,000 and 20,000 messages with realistic tool output in the
 * tail (issue 36), opened cold and warm, with the host's RSS. Time from the click to the last answer on screen, the longest
 * main-thread task meanwhile, the page's heap after a GC and the host's RSS, beside opening the 2-message session.
 */
export default async function sessionOpen(): Promise<BenchResult[]> {
  ensureBuild();
  const executablePath = findChromium();
  if (!executablePath) throw new Error('No Chromium found for the session-open benchmark (set DEFT_CHROMIUM).');
  const home = await tempDir('deft-bench-home-');
  const workspace = await tempDir('deft-bench-ws-');
  for (const messages of [2, ...SIZES])
    await generateSession({ home, workspace, id: `open-${messages}`, turns: messages / 2, toolCalls: messages > 2, title: title(messages) });
  await writeFile(join(home, 'settings.json'), JSON.stringify({ provider: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'bench' } }));
  const host = await startBenchHost(workspace, home);
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.addInitScript(RECORD_LONG_TASKS);
    await page.goto(host.url);
    await page.locator(`button.session-open[title="${title(2)}"]`).waitFor();
    const cdp = await page.context().newCDPSession(page);
    const heap = async () => {
      await cdp.send('HeapProfiler.collectGarbage');
      return page.evaluate(() => (performance as unknown as { memory: { usedJSHeapSize: number } }).memory.usedJSHeapSize);
    };
    const figures = new Map<number, { ms: number[]; longestTask: number[]; heap: number; rss: number }>();
    // DEFT_BENCH_HEAVY_ONLY=1: only the sessions with command output (cold and warm), not the plain sizes.
    const sizes = process.env.DEFT_BENCH_HEAVY_ONLY ? [] : SIZES;
    for (const messages of [2, ...sizes]) {
      const runs = { ms: [] as number[], longestTask: [] as number[], heap: 0, rss: 0 };
      for (let i = 0; i < RUNS; i++) {
        // Start from another session each time (the small one, or a large one for the small one itself).
        const from = messages === 2 ? SIZES[0]! : 2;
        await open(page, from);
        const { ms, longestTask } = await open(page, messages);
        runs.ms.push(ms);
        runs.longestTask.push(longestTask);
      }
      runs.heap = await heap();
      runs.rss = await processRss(host.child.pid!);
      figures.set(messages, runs);
    }
    const small = figures.get(2)!;
    const mid = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const smallMs = mid(small.ms);
    const heavy = new Map<string, HeavyFigures>();
    const cases = HEAVY.flatMap((messages) => [true, false].map((snapshot) => ({ messages, snapshot })));
    for (const { messages, snapshot } of cases) heavy.set(`${messages} ${snapshot}`, await openHeavy(executablePath, messages, snapshot));
    const heavyRows = cases.flatMap(({ messages, snapshot }): BenchResult[] => {
      const f = heavy.get(`${messages} ${snapshot}`)!;
      const label = `${messages.toLocaleString('en')} messages with ${HEAVY_LINES}-line command output in each of the last ${HEAVY_TURNS} turns (log ${f.logMiB.toFixed(0)} MiB, ${snapshot ? 'as Deft leaves it: with a snapshot' : 'written before snapshots'})`;
      return [
        {
          name: `window: open ${label}, cold (first open)`,
          value: f.cold,
          unit: 'ms',
          baseline: { name: `same, warm (median of ${RUNS})`, value: mid(f.warm) },
          note: `goal: cold ≤ 2× warm; the reply reached the page after ${f.coldReply.toFixed(0)} ms (warm ${mid(f.warmReply).toFixed(0)}); longest task ${Math.max(...f.longestTask).toFixed(0)} ms`,
        },
        {
          name: `window: page CPU opening ${label}, cold (first open)`,
          value: f.coldPage.task,
          unit: 'ms',
          baseline: { name: `same, warm (median of ${RUNS})`, value: mid(f.warmPage.map((p) => p.task)) },
          note: `of which JavaScript: ${f.coldPage.script.toFixed(0)} ms cold, ${mid(f.warmPage.map((p) => p.script)).toFixed(0)} warm; before the cold open, the page was idle after ${f.settleMs.toFixed(0)} ms, ${f.settleCpu.toFixed(0)} ms CPU (its warm-ups)`,
        },
        {
          name: `window: host CPU opening ${label}, cold (first open)`,
          value: f.coldCpu,
          unit: 'ms',
          baseline: { name: `same, warm (median of ${RUNS})`, value: mid(f.warmCpu) },
          note: `until the host is idle again: ${f.coldCpuSettled.toFixed(0)} ms`,
        },
        {
          name: `window: host RSS after opening ${label}`,
          value: f.rss / MiB,
          unit: 'MiB',
          baseline: { name: 'same host before, the 2-message session open', value: f.smallRss / MiB },
          note: `goal: within 30 MiB of the 2-message session (+${((f.rss - f.smallRss) / MiB).toFixed(0)} MiB)`,
        },
        {
          name: `window: host heap after a full GC, ${label}`,
          value: f.heap / MiB,
          unit: 'MiB',
          baseline: { name: 'same host before, the 2-message session open', value: f.smallHeap / MiB },
          note: `+${((f.heap - f.smallHeap) / MiB).toFixed(0)} MiB held (RSS beyond it: what the heap grew to while the log was read)`,
        },
      ];
    });
    return [
      ...heavyRows,
      ...sizes.flatMap((messages): BenchResult[] => {
        const f = figures.get(messages)!;
        const label = `${messages.toLocaleString('en')} messages`;
        return [
          {
            name: `window: open ${label} (click → last answer on screen, median of ${RUNS})`,
            value: mid(f.ms),
            unit: 'ms',
            baseline: { name: 'same, 2 messages', value: smallMs },
            note: `${messages === 5_000 ? 'goal ≤ 400 ms and ≤ 2×; ' : ''}first open ${f.ms[0]!.toFixed(0)} ms (the host read the log); longest task ${mid(f.longestTask).toFixed(0)} ms (goal ≤ 100; 2 msgs: ${mid(small.longestTask).toFixed(0)})`,
          },
          {
            name: `window: page heap and host RSS after opening ${label}`,
            value: f.heap / MiB,
            unit: 'MiB',
            baseline: { name: 'page heap with the 2-message session', value: small.heap / MiB },
            note: `host RSS ${(f.rss / MiB).toFixed(0)} MiB (with the 2-message session: ${(small.rss / MiB).toFixed(0)} MiB)`,
          },
        ];
      }),
    ];
  } finally {
    await browser.close();
    await host.stop();
    await Promise.all([home, workspace].map((dir) => rm(dir, { recursive: true, force: true })));
  }
}
