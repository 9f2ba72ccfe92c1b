import { localEnvironment } from '../main/agent/infra/environment/local/local-environment';
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { FileIndex } from '../main/agent/capabilities/files/file-index';
import { ripgrepPath } from '../main/agent/infra/environment/local/ripgrep-binary';
import { defaultCapabilities } from '../main/agent/capabilities';
import { DeftCore } from '../main/agent/runtime/core';
import { FileSecretStore } from '../main/agent/infra/settings/secrets';
import { tempDir } from '../test-support/harness';
import { dispatchCommand } from '../main/host/dispatch';
import { generateRepo } from './generate-repo';
import type { BenchResult } from './types';
import { webHost } from '../main/host/hosts';

// The @-mention picker on the 20,000-file repository: how soon a keystroke gets its first results, the
// index the core builds in the background, and a keystroke that comes before that index is ready.

/** What each keystroke sends while typing `@file1234` and a folder-ish query. */
const KEYSTROKES = ['f', 'fi', 'fil', 'file', 'file1', 'file12', 'file123', 'file1234', 'p', 'pk', 'pkg3', 'pkg3m', 'pkg3mod', 'pkg3mod1', 'part3'];
const ROUNDS = 5;

/** `rg --files` listed in full (what a picker without an index would run on every keystroke). */
function rgFiles(cwd: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(ripgrepPath(), ['--no-config', '--hidden', '--no-require-git', '--files', '--glob', '!.git'], {
      cwd,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', reject);
    child.on('close', () => resolve(Buffer.concat(chunks).toString().split('\n').filter(Boolean)));
  });
}

const med = (values: number[]) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const p95 = (values: number[]) => values.slice().sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.95))]!;

export default async function mentionBenches(): Promise<BenchResult[]> {
  const repo = await generateRepo();
  const home = await tempDir('deft-bench-home-');
  const results: BenchResult[] = [];

  // A keystroke that arrives while the index is still being built (the first @ right after start).
  const coldStart = performance.now();
  const core = new DeftCore({ home, workspace: repo.root, host: webHost, secrets: FileSecretStore.inHome(home), capabilities: defaultCapabilities });
  const cold = await dispatchCommand(core.handlers, 'searchFiles', { query: 'f', limit: 30 });
  const coldMs = performance.now() - coldStart;
  if (!cold.ok) throw new Error(cold.error.message);
  const rgStart = performance.now();
  const listed = await rgFiles(repo.root);
  const rgMs = performance.now() - rgStart;
  results.push({
    name: `@-mention: first keystroke right after start (index still building, ${(repo.files / 1000).toFixed(0)}k files)`,
    value: coldMs,
    unit: 'ms',
    baseline: { name: 'rg --files alone', value: rgMs },
    note: `${listed.length} files listed; the answer waits for the first build only`,
  });

  // Warm: each keystroke through the protocol (validation, the index, the answer), as the window sends it.
  const latencies: number[] = [];
  const naive: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const query of KEYSTROKES) {
      const t0 = performance.now();
      const reply = await dispatchCommand(core.handlers, 'searchFiles', { query, limit: 30 });
      latencies.push(performance.now() - t0);
      if (!reply.ok || !(reply.result as { files: unknown[] }).files.length) throw new Error(`no results for ${query}`);
    }
    // The baseline: list the tree and filter it for one keystroke, as a picker without an index would.
    const t0 = performance.now();
    (await rgFiles(repo.root)).filter((p) => p.includes('file12'));
    naive.push(performance.now() - t0);
  }
  results.push({
    name: `@-mention: first results after a keystroke (${(repo.files / 1000).toFixed(0)}k files, goal ≤ 100 ms)`,
    value: med(latencies),
    unit: 'ms',
    baseline: { name: 'rg --files + filter per keystroke', value: med(naive) },
    note: `median of ${latencies.length} keystrokes; p95 ${p95(latencies).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`,
  });

  // The background build itself, and the memory the index holds.
  const gc = (globalThis as { gc?: () => void }).gc;
  const builds: number[] = [];
  const raws: number[] = [];
  let heap = 0;
  for (let i = 0; i < 3; i++) {
    gc?.();
    const before = process.memoryUsage().heapUsed;
    const index = new FileIndex(localEnvironment(), repo.root);
    const t0 = performance.now();
    await index.refresh();
    builds.push(performance.now() - t0);
    gc?.();
    // The largest of the builds: a later build can free what an earlier one left (fuzzysort's caches), reading below zero.
    heap = Math.max(heap, (process.memoryUsage().heapUsed - before) / 1024 / 1024);
    index.close();
    const t1 = performance.now();
    await rgFiles(repo.root);
    raws.push(performance.now() - t1);
  }
  results.push({
    name: `@-mention: index build in the background (${(repo.files / 1000).toFixed(0)}k files)`,
    value: med(builds),
    unit: 'ms',
    baseline: { name: 'rg --files', value: med(raws) },
    note: `heap held by an index ≈ ${heap.toFixed(1)} MiB (largest of 3 builds)`,
  });
  await core.close();
  return results;
}
