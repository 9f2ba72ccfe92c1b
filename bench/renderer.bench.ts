import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromium } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from '../scripts/chromium.mjs';
import { ensureBuild } from '../scripts/ensure-build.mjs';
import { tempDir } from '../test-support/harness';
import { generateSession } from './generate-session';
import { type BenchResult, median } from './types';
import { type BenchHost, startBenchHost } from './web-host';

/** Time from navigation to the last answer of a 500-message conversation on screen, versus an empty session. */
export default async function rendererBench(): Promise<BenchResult[]> {
  ensureBuild();
  const executablePath = findChromium();
  if (!executablePath) throw new Error('No Chromium found for the renderer benchmark (set DEFT_CHROMIUM).');
  const home = await tempDir('deft-bench-home-');
  const bigWs = await tempDir('deft-bench-big-');
  const emptyWs = await tempDir('deft-bench-empty-');
  await generateSession({ home, workspace: bigWs, id: 'big', turns: 250, toolCalls: false });
  await generateSession({ home, workspace: emptyWs, id: 'empty', turns: 1, toolCalls: false });
  const { writeFile } = await import('node:fs/promises');
  await writeFile(join(home, 'settings.json'), JSON.stringify({ provider: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', model: 'bench' } }));
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  const hosts: BenchHost[] = [];
  const measure = async (workspace: string, lastText: string) => {
    const host = await startBenchHost(workspace, home);
    hosts.push(host);
    const { url } = host;
    let heap = 0;
    const time = await median(3, async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      const t0 = performance.now();
      await page.goto(url);
      await page.getByText(lastText).waitFor({ state: 'visible', timeout: 30_000 });
      const elapsed = performance.now() - t0;
      heap = await page.evaluate(() => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0);
      await page.close();
      return elapsed;
    });
    return { time, heap };
  };
  const big = await measure(bigWs, 'In short: part 249 is done.');
  const empty = await measure(emptyWs, 'In short: part 0 is done.');
  await browser.close();
  await Promise.all(hosts.map((host) => host.stop()));
  await Promise.all([home, bigWs, emptyWs].map((d) => rm(d, { recursive: true, force: true })));
  return [
    {
      name: 'renderer: open a 500-message conversation (navigation → last answer visible)',
      value: big.time,
      unit: 'ms',
      baseline: { name: 'same, 2-message conversation', value: empty.time },
      note: `JS heap ${(big.heap / 1024 / 1024).toFixed(1)} MiB vs ${(empty.heap / 1024 / 1024).toFixed(1)} MiB`,
    },
  ];
}
