import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from '../test-support/harness';
import { generateSession } from './generate-session';
import type { BenchResult } from './types';

const run = promisify(execFile);
/** Long enough that no large session goes before all are open and measured; the wait after it is the unload. */
const UNLOAD_AFTER_MS = 15_000;

const signed = (mib: number) => `${mib >= 0 ? '+' : '−'}${Math.abs(mib).toFixed(1)}`;

interface Memory {
  rss: number;
  heap: number;
}

/**
 * Letting go of sessions (issue 19): a web host whose window opens sessions of 2,000, 5,000 and 5,000
 * messages one after another, then a 2-message one; its RSS and heap while all four are loaded and after the
 * three large ones are let go of (idle, shown by no window), beside a fresh host that opened only the small one.
 * Each host is a process of its own.
 */
export default async function sessionUnload(): Promise<BenchResult[]> {
  const home = await tempDir('deft-bench-home-');
  const workspace = await tempDir('deft-bench-ws-');
  const sizes = [2_000, 5_000, 5_000, 2];
  const ids = sizes.map((messages, i) => `unload-${i}-${messages}`);
  for (const [i, messages] of sizes.entries()) await generateSession({ home, workspace, id: ids[i]!, turns: messages / 2, toolCalls: messages > 2 });
  const host = async (mode: 'baseline' | 'unload') => {
    const args = [
      '--expose-gc',
      '--import',
      'tsx',
      '--import',
      './scripts/raw-loader.mjs',
      join(import.meta.dirname, 'session-unload-host.ts'),
      mode,
      home,
      workspace,
      String(UNLOAD_AFTER_MS),
      ...(mode === 'baseline' ? ids.slice(-1) : ids),
    ];
    // The child registers the raw-import hooks itself (the variable would tell it they already are).
    const { __DEFT_RAW_HOOKS: _registered, ...env } = process.env;
    const { stdout } = await run(process.execPath, args, { cwd: join(import.meta.dirname, '..'), env, maxBuffer: 16 * 1024 * 1024 });
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      shown?: Memory;
      before?: Memory;
      after?: Memory;
      loadedBefore?: number;
      loadedAfter?: string[];
      unloadWaitMs?: number;
    };
  };
  const baseline = (await host('baseline')).shown!;
  const measured = await host('unload');
  await rm(home, { recursive: true, force: true });
  await rm(workspace, { recursive: true, force: true });
  const before = measured.before!;
  const after = measured.after!;
  const fresh = (key: keyof Memory) => ({ name: 'a fresh host that opened only the 2-message session', value: baseline[key] });
  return [
    {
      name: 'host RSS, 2,000/5,000/5,000 messages opened then 2 shown, all loaded',
      value: before.rss,
      unit: 'MiB',
      baseline: fresh('rss'),
      note: `${measured.loadedBefore} sessions loaded`,
    },
    {
      name: 'host RSS after the idle unload',
      value: after.rss,
      unit: 'MiB',
      baseline: fresh('rss'),
      note: `${signed(after.rss - baseline.rss)} MiB beside the baseline (goal ≤ +20); loaded: ${measured.loadedAfter?.join(', ')}; unloaded ${((measured.unloadWaitMs ?? 0) / 1000).toFixed(1)} s after the switch (unloadAfterMs ${UNLOAD_AFTER_MS / 1000} s)`,
    },
    { name: 'host heap, all four loaded', value: before.heap, unit: 'MiB', baseline: fresh('heap') },
    {
      name: 'host heap after the idle unload',
      value: after.heap,
      unit: 'MiB',
      baseline: fresh('heap'),
      note: `${signed(after.heap - baseline.heap)} MiB beside the baseline`,
    },
  ];
}
