import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gitBinary } from '../main/agent/infra/git/git';
import { Worktrees } from '../main/agent/infra/worktrees/worktrees';
import { createHarness, tempDir } from '../test-support/harness';
import type { BenchResult } from './types';

// Issue 30: memory with 5 sessions running at once vs 1. Each session runs in a worktree of its own with a core of its
// own (a window each, as the desktop app runs them, all in one process), streaming a 3-second answer from the mock
// model at the same time. Measured from the process's state (after GC) before the cores were made, to the peak
// sampled every 20 ms while the turns run: RSS and the JS heap. CPU and wall for the same turns.

const CHUNKS = 300;
const PER_SECOND = 100;
const WORDS = 'Working through the change: reading, editing, checking the result again. ';

const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
const gc = () => (globalThis as { gc?: () => void }).gc?.();
const mib = (bytes: number) => bytes / 1024 / 1024;

interface Run {
  rss: number;
  heap: number;
  wall: number;
  cpu: number;
}

async function running(count: number, repo: string, tag: string): Promise<Run> {
  const main = await createHarness({ workspace: repo });
  try {
    const trees = await Worktrees.of(main.home, repo);
    const paths: string[] = [];
    for (let i = 0; i < count; i++) paths.push((await trees.create({ name: `${tag}-${i}` })).record.path);
    gc();
    gc();
    const base = process.memoryUsage();
    const sessions = [];
    for (const path of paths) sessions.push(await createHarness({ workspace: path, home: main.home }));
    try {
      const reply = () => ({ chunks: [...Array.from({ length: CHUNKS }, () => ({ text: WORDS })), { finish: 'stop' as const }], perSecond: PER_SECOND });
      for (const s of sessions) s.server.fallback = reply;
      // One short turn each first: code loaded on first use is not counted as the turns'.
      for (const s of sessions) {
        s.server.enqueue({ chunks: [{ text: 'ready' }, { finish: 'stop' }] });
        await s.run('warm up');
      }
      let peakRss = process.memoryUsage().rss;
      let peakHeap = process.memoryUsage().heapUsed;
      const sampler = setInterval(() => {
        const m = process.memoryUsage();
        peakRss = Math.max(peakRss, m.rss);
        peakHeap = Math.max(peakHeap, m.heapUsed);
      }, 20);
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await Promise.all(sessions.map((s) => s.run('do the work')));
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      clearInterval(sampler);
      return { rss: mib(peakRss - base.rss), heap: mib(peakHeap - base.heapUsed), wall, cpu: (cpu.user + cpu.system) / 1000 };
    } finally {
      for (const s of sessions) await s.dispose();
    }
  } finally {
    await main.dispose();
  }
}

export default async function bench(): Promise<BenchResult[]> {
  if (!gitBinary()) {
    process.stderr.write('  git not found: parallel session benchmarks not run\n');
    return [];
  }
  const repo = await tempDir('deft-bench-par-');
  git(repo, 'init', '-q', '-b', 'main');
  await writeFile(join(repo, 'app.txt'), 'one\n');
  git(repo, '-c', 'user.name=b', '-c', 'user.email=b@e.invalid', 'add', '.');
  git(repo, '-c', 'user.name=b', '-c', 'user.email=b@e.invalid', 'commit', '-qm', 'first');
  // Once unmeasured, so the first measured scenario does not pay for loading the code.
  await running(1, repo, 'warm');
  const one = await running(1, repo, 'one');
  const five = await running(5, repo, 'five');
  const note = (r: Run) => `JS heap +${r.heap.toFixed(1)} MiB; wall ${(r.wall / 1000).toFixed(2)} s; CPU ${(r.cpu / 1000).toFixed(2)} s`;
  return [
    {
      name: '5 worktree sessions running at once (a core each, streaming): peak RSS growth',
      value: five.rss,
      unit: 'MiB',
      baseline: { name: '1 session running', value: one.rss },
      note: `5: ${note(five)} · 1: ${note(one)}`,
    },
    {
      name: '5 worktree sessions running at once: peak JS heap growth',
      value: five.heap,
      unit: 'MiB',
      baseline: { name: '1 session running', value: one.heap },
      note: 'RSS grows less than the heap: pages the warm-up runs already took are reused',
    },
    {
      name: '5 worktree sessions running at once: CPU',
      value: five.cpu,
      unit: 'ms',
      baseline: { name: '1 session running', value: one.cpu },
      note: `wall ${five.wall.toFixed(0)} ms vs ${one.wall.toFixed(0)} ms (each answer ${CHUNKS / PER_SECOND} s of streaming)`,
    },
  ];
}
