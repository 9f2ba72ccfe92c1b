import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type CDPSession, type Page, chromium } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from '../scripts/chromium.mjs';
import { ensureBuild, root } from '../scripts/ensure-build.mjs';
import { tempDir } from '../test-support/harness';
import { deltas, longAnswer } from '../test-support/long-answer';
import { MockModelServer } from '../test-support/mock-model-server';
import { pathToFileURL } from 'node:url';
import { type BenchResult, median } from './types';
import { startBenchHost } from './web-host';

const RATE = 1_000;
const SECONDS = 10;
const DELTA_CHARS = 4;
/** The slower machine the second run emulates: Chromium's CPU throttling (DevTools' "4× slowdown", a mid-range laptop on battery). */
const THROTTLE = 4;

/** The little of the page's globals the benchmark reads (bench/ is compiled without the DOM types). */
interface PageGlobals {
  document: { querySelectorAll(selector: string): { length: number } };
}

interface Frames {
  /** Frames in the last second before the answer finished. */
  lastSecondFps: number;
  /** The longest gap between two frames while it streamed (ms). */
  longestGap: number;
  /** When it began, from the start (ms). */
  longestGapAt: number;
  /** The longest gap after the first second (ms): the first second also warms up the parser and the highlighter's grammars. */
  longestGapAfterFirstSecond: number;
  /** The longest gap that began in the first second (ms). */
  longestGapInFirstSecond: number;
  /** How long the stream took on screen (ms), first text to the end. */
  duration: number;
  /** Frames the page drew meanwhile (its own requestAnimationFrame callbacks). */
  frames: number;
  /** CPU time the page's renderer process used meanwhile (ms, every thread: main, compositor, raster), from the browser's process table. */
  rendererCpu: number;
  /**
   * CPU time the page's main thread used meanwhile (ms: CDP's ThreadTime). CPU, not wall time: a loaded machine
   * does not add to it. Throttled, it counts the emulated slow CPU (about 4× the work's own, as measured).
   */
  mainCpu: number;
  /** Frames that changed the page's content (new text), from a mutation observer. */
  changedFrames: number;
  /** Main-thread time the page spent meanwhile (ms): script, style and layout (CDP Performance metrics). */
  script: number;
  style: number;
  layout: number;
}

/** CPU seconds used so far by the browser's renderer processes (ms). Wall time lies on a loaded machine; CPU time does not. */
async function rendererCpu(browser: CDPSession): Promise<number> {
  const { processInfo } = (await browser.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; cpuTime: number }[] };
  return processInfo.filter((p) => p.type === 'renderer').reduce((sum, p) => sum + p.cpuTime * 1000, 0);
}

async function mainThread(cdp: CDPSession): Promise<Record<string, number>> {
  const { metrics } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(metrics.map((m) => [m.name, m.value * 1000]));
}

/** Count animation frames in the page from `start()` until `done` resolves in the page. */
async function recordFrames(page: Page, run: () => Promise<void>): Promise<Frames> {
  // A string, not a function: tsx would wrap named functions in a helper the page does not have.
  // Frames that changed the page's content (text or elements: a mutation observer, which sees no style changes) are counted apart.
  await page.evaluate(`(() => {
    window.__frames = [];
    window.__changedFrames = 0;
    window.__stop = false;
    let changed = false;
    window.__observer?.disconnect();
    window.__observer = new MutationObserver(() => { changed = true; });
    window.__observer.observe(document.body, { childList: true, characterData: true, subtree: true });
    const tick = (t) => {
      window.__frames.push(t);
      if (changed) window.__changedFrames++;
      changed = false;
      if (!window.__stop) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  })()`);
  const from = await page.evaluate(() => performance.now());
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const browserCdp = await page.context().browser()!.newBrowserCDPSession();
  const before = await mainThread(cdp);
  const cpuBefore = await rendererCpu(browserCdp);
  await run();
  const cpuAfter = await rendererCpu(browserCdp);
  const after = await mainThread(cdp);
  await browserCdp.detach();
  await cdp.detach();
  const spent = (name: string) => (after[name] ?? 0) - (before[name] ?? 0);
  const until = await page.evaluate<number>('window.__stop = true, window.__observer.disconnect(), performance.now()');
  const changedFrames = await page.evaluate<number>('window.__changedFrames');
  const frames = (await page.evaluate<number[]>('window.__frames')).filter((t) => t >= from && t <= until);
  let longestGap = 0;
  let longestGapAt = 0;
  let longestGapAfterFirstSecond = 0;
  let longestGapInFirstSecond = 0;
  for (let i = 1; i < frames.length; i++) {
    if (frames[i - 1]! - from >= 1_000) longestGapAfterFirstSecond = Math.max(longestGapAfterFirstSecond, frames[i]! - frames[i - 1]!);
    else longestGapInFirstSecond = Math.max(longestGapInFirstSecond, frames[i]! - frames[i - 1]!);
    if (frames[i]! - frames[i - 1]! <= longestGap) continue;
    longestGap = frames[i]! - frames[i - 1]!;
    longestGapAt = frames[i - 1]! - from;
  }
  const last = frames.filter((t) => t > until - 1_000).length;
  return {
    lastSecondFps: last,
    longestGap,
    longestGapAt,
    longestGapAfterFirstSecond,
    longestGapInFirstSecond,
    duration: until - from,
    frames: frames.length,
    mainCpu: spent('ThreadTime'),
    changedFrames,
    rendererCpu: cpuAfter - cpuBefore,
    script: spent('ScriptDuration'),
    style: spent('RecalcStyleDuration'),
    layout: spent('LayoutDuration'),
  };
}

/**
 * 1,000 deltas a second for 10 s into one growing ~40 KB Markdown answer with code blocks, through
 * the web host in Chromium: the frame rate in the last second and the longest frame gap, beside the
 * same page recording frames for as long with nothing streaming.
 */
export default async function streamingBench(): Promise<BenchResult[]> {
  ensureBuild();
  const executablePath = findChromium();
  if (!executablePath) throw new Error('No Chromium found for the streaming benchmark (set DEFT_CHROMIUM).');
  const answer = longAnswer(RATE * SECONDS * DELTA_CHARS);
  const chunks = deltas(answer, DELTA_CHARS);
  const mock = new MockModelServer();
  await mock.start();
  const home = await tempDir('deft-bench-home-');
  const workspace = await tempDir('deft-bench-ws-');
  await writeFile(
    join(home, 'settings.json'),
    JSON.stringify({ provider: { kind: 'openai', baseUrl: mock.baseUrl, model: 'mock-model', apiKey: 'sk-bench' }, checkpoints: { enabled: false } }),
  );
  const host = await startBenchHost(workspace, home);
  const { url } = host;
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(url);
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.waitFor();
    // Warm up (fonts, the highlighter, the session) with a short answer.
    mock.enqueue({ chunks: [{ text: 'Ready.\n\n```ts\nconst ready = true;\n```' }, { finish: 'stop' }] });
    await box.fill('warm up');
    await box.press('Enter');
    await page.getByText('const ready = true;').waitFor();
    const answers = page.getByRole('article', { name: 'Assistant message' });
    await page.waitForFunction('!document.querySelector(\'article[aria-busy="true"]\')');

    const idle = await recordFrames(page, () => page.waitForTimeout(SECONDS * 1_000));

    mock.enqueue({ chunks: [...chunks.map((text) => ({ text })), { finish: 'stop' }], perSecond: RATE });
    // DEFT_BENCH_CPU_PROFILE=file.cpuprofile: the page's CPU profile while it streams (open it in DevTools).
    const profilePath = process.env.DEFT_BENCH_CPU_PROFILE;
    const profiler = profilePath ? await page.context().newCDPSession(page) : null;
    if (profiler) await profiler.send('Profiler.enable').then(() => profiler.send('Profiler.start'));
    // DEFT_BENCH_TRACE=file.json: a performance trace of the page while it streams (open it in DevTools' Performance panel).
    const tracePath = process.env.DEFT_BENCH_TRACE;
    if (tracePath) await browser.startTracing(page, { path: tracePath, screenshots: false });
    const streamed = await recordFrames(page, async () => {
      await box.fill('write the long answer');
      await box.press('Enter');
      // Done when the answer stops streaming (its toolbar shows). Polled rarely and cheaply: Playwright's
      // locators poll every frame and compute styles, which would cost the page frames of its own.
      await page.waitForFunction(
        () => (globalThis as unknown as PageGlobals).document.querySelectorAll('[role="toolbar"][aria-label="Answer actions"]').length >= 2,
        undefined,
        { polling: 250, timeout: 120_000 },
      );
    });
    if (profiler && profilePath) await writeFile(profilePath, JSON.stringify((await profiler.send('Profiler.stop')).profile));
    if (tracePath) await browser.stopTracing();
    const shown = await answers.last().locator('.markdown').innerText();
    if (!shown.includes('That is all: every part is done.')) throw new Error('the streamed answer did not finish rendering');
    // The same stream on a CPU four times slower: does the window keep up, or fall behind and stutter?
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: THROTTLE });
    // DEFT_BENCH_CPU_PROFILE_THROTTLED=file.cpuprofile: the page's CPU profile while the throttled stream runs.
    const throttledProfilePath = process.env.DEFT_BENCH_CPU_PROFILE_THROTTLED;
    const throttledProfiler = throttledProfilePath ? await page.context().newCDPSession(page) : null;
    if (throttledProfiler) await throttledProfiler.send('Profiler.enable').then(() => throttledProfiler.send('Profiler.start'));
    // DEFT_BENCH_TRACE_THROTTLED=file.json: a performance trace of the throttled stream.
    const throttledTracePath = process.env.DEFT_BENCH_TRACE_THROTTLED;
    if (throttledTracePath) await browser.startTracing(page, { path: throttledTracePath, screenshots: false });
    mock.enqueue({ chunks: [...chunks.map((text) => ({ text })), { finish: 'stop' }], perSecond: RATE });
    const throttled = await recordFrames(page, async () => {
      await box.fill('write the long answer again');
      await box.press('Enter');
      await page.waitForFunction(
        () => (globalThis as unknown as PageGlobals).document.querySelectorAll('[role="toolbar"][aria-label="Answer actions"]').length >= 3,
        undefined,
        { polling: 250, timeout: 240_000 },
      );
    });
    if (throttledTracePath) await browser.stopTracing();
    if (throttledProfiler && throttledProfilePath)
      await writeFile(throttledProfilePath, JSON.stringify((await throttledProfiler.send('Profiler.stop')).profile));
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    const cpu = (f: Frames) => `script ${f.script.toFixed(0)} ms, style ${f.style.toFixed(0)} ms, layout ${f.layout.toFixed(0)} ms`;
    const perDelta = (f: Frames) => (f.script + f.style + f.layout) / chunks.length;
    const busy = (f: Frames) => (((f.script + f.style + f.layout) / f.duration) * 100).toFixed(0);
    /** Main-thread CPU a delta (ms): the thread's own CPU time, which a loaded machine does not inflate. */
    const cpuPerDelta = (f: Frames) => f.mainCpu / chunks.length;
    /** Main-thread CPU a frame that showed new text (ms): all the stream's main-thread CPU (the frames between too) over those frames. */
    const cpuPerTextFrame = (f: Frames) => f.mainCpu / Math.max(1, f.changedFrames);
    /** Frames a second over the whole stream, from the page's own requestAnimationFrame timestamps. */
    const fps = (f: Frames) => (f.frames / f.duration) * 1000;
    const cpuNote = (f: Frames) =>
      `main thread ${f.mainCpu.toFixed(0)} ms CPU in ${(f.duration / 1000).toFixed(1)} s, ${f.changedFrames} frames with new text (${cpuPerTextFrame(f).toFixed(2)} ms CPU each), ${f.frames} frames in all (${fps(f).toFixed(0)} fps over the stream)`;
    const note = `${chunks.length.toLocaleString('en-US')} deltas, ${(answer.length / 1024).toFixed(0)} KB, on screen in ${(streamed.duration / 1000).toFixed(1)} s; main thread: ${cpu(streamed)} (idle: ${cpu(idle)})`;
    // Loaded by path: the renderer's modules (and the DOM types of their libraries) stay out of the Node program.
    const perFrameModule = pathToFileURL(join(root, 'renderer/src/features/conversation/markdown-per-frame.ts')).href;
    const { markdownPerFrame } = (await import(perFrameModule)) as {
      markdownPerFrame: (frames: string[], runs: (run: () => number) => Promise<number>) => Promise<{ fromTree: number; reparsed: number; splitOnly: number }>;
    };
    // The text after every frame of 16 deltas (1,000 deltas/s at 60 frames/s).
    const frames = chunks.flatMap((_, i) => (i % 16 === 15 ? [chunks.slice(0, i + 1).join('')] : []));
    const perFrame = await markdownPerFrame(frames, (run) => median(7, () => Promise.resolve(run())));
    return [
      {
        name: 'streaming: Markdown work per frame (split, then render the growing block), Node',
        value: perFrame.fromTree,
        unit: 'ms',
        baseline: { name: 'same split, the block rendered by react-markdown (parsed again)', value: perFrame.reparsed },
        note: `the split alone: ${perFrame.splitOnly.toFixed(3)} ms a frame`,
      },
      {
        name: 'streaming: main-thread CPU per delta (thread CPU time, not wall: holds on a loaded machine)',
        value: cpuPerDelta(streamed),
        unit: 'ms',
        baseline: { name: `same stream, CPU throttled ${THROTTLE}×`, value: cpuPerDelta(throttled) },
        note: `unthrottled: ${cpuNote(streamed)}; throttled: ${cpuNote(throttled)}; idle page as long: ${idle.mainCpu.toFixed(0)} ms CPU`,
      },
      {
        name: 'streaming: main-thread CPU per frame that applied text',
        value: cpuPerTextFrame(streamed),
        unit: 'ms',
        baseline: { name: `same stream, CPU throttled ${THROTTLE}× (each frame takes more deltas)`, value: cpuPerTextFrame(throttled) },
        note: `all the stream's main-thread CPU (frames between included) over the frames that showed new text (a mutation observer's count); throttled, CPU time counts the emulated slow CPU`,
      },
      {
        name: "streaming: fps over the whole stream (the page's own frames)",
        value: fps(streamed),
        unit: 'fps',
        baseline: { name: 'same page, nothing streaming', value: fps(idle) },
        note: `CPU throttled ${THROTTLE}×: ${fps(throttled).toFixed(0)} fps over the stream, ${throttled.lastSecondFps} in its last second`,
      },
      {
        name: `streaming ${RATE.toLocaleString('en-US')} deltas/s into a 40 KB answer with code: fps in the last second`,
        value: streamed.lastSecondFps,
        unit: 'fps',
        baseline: { name: 'same page, nothing streaming', value: idle.lastSecondFps },
        note,
      },
      {
        name: `streaming, CPU throttled ${THROTTLE}×: fps in the last second`,
        value: throttled.lastSecondFps,
        unit: 'fps',
        baseline: { name: 'same stream, unthrottled', value: streamed.lastSecondFps },
        note: `on screen in ${(throttled.duration / 1000).toFixed(1)} s (unthrottled ${(streamed.duration / 1000).toFixed(1)} s); main thread: ${cpu(throttled)}`,
      },
      {
        name: `streaming, CPU throttled ${THROTTLE}×: main-thread time per delta (script + style + layout)`,
        value: perDelta(throttled),
        unit: 'ms',
        baseline: { name: 'same stream, unthrottled', value: perDelta(streamed) },
        note: `renderer CPU (all its threads) ${(throttled.rendererCpu / chunks.length).toFixed(3)} ms a delta throttled, ${(streamed.rendererCpu / chunks.length).toFixed(3)} ms unthrottled, ${(idle.rendererCpu / chunks.length).toFixed(3)} ms idle for as long; ${(perDelta(throttled) * 1000).toFixed(0)} µs a delta throttled, ${(perDelta(streamed) * 1000).toFixed(0)} µs unthrottled; main thread busy ${busy(throttled)} % of the stream throttled, ${busy(streamed)} % unthrottled`,
      },
      {
        name: `streaming, CPU throttled ${THROTTLE}×: longest frame gap`,
        value: throttled.longestGap,
        unit: 'ms',
        baseline: { name: 'same stream, unthrottled', value: streamed.longestGap },
        note: `after the first second: ${throttled.longestGapAfterFirstSecond.toFixed(0)} ms`,
      },
      {
        name: 'streaming: longest frame gap',
        value: streamed.longestGap,
        unit: 'ms',
        baseline: { name: 'same page, nothing streaming', value: idle.longestGap },
        note: `from ${(streamed.longestGapAt / 1000).toFixed(2)} s of ${(streamed.duration / 1000).toFixed(1)} s (in the first second: ${streamed.longestGapInFirstSecond.toFixed(0)} ms, after it: ${streamed.longestGapAfterFirstSecond.toFixed(0)} ms); ${note}`,
      },
    ];
  } finally {
    await browser.close();
    // Removed once it has exited: it may still be writing the session.
    await host.stop();
    await mock.close();
    await Promise.all([home, workspace].map((d) => rm(d, { recursive: true, force: true })));
  }
}
