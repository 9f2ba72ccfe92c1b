import { spawn } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { SessionSandbox, SpawnPlan } from '../main/agent/contract/sandbox';
import { sandboxSupport } from '../main/agent/infra/sandbox/availability';
import { Sandbox } from '../main/agent/infra/sandbox/sandbox';
import { tempDir } from '../test-support/harness';
import { type BenchResult, median } from './types';

function run(file: string, args: string[], env: Record<string, string>, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited with ${code}: ${stderr.trim()}`))));
  });
}

async function sandboxed(sandbox: SessionSandbox, cwd: string, command: string): Promise<void> {
  const plan: SpawnPlan = await sandbox.plan({ argv: ['/bin/bash', '-c', command], cwd, label: command });
  try {
    await run(plan.file, plan.args, plan.env, plan.cwd);
  } finally {
    plan.release();
  }
}

/**
 * The OS sandbox's cost per command: planning it (policy, proxy pass) and starting bubblewrap (or
 * sandbox-exec) around `true`, against spawning `bash -c true` with the same scrubbed environment; and
 * 100 sandboxed commands in a row against 100 plain ones.
 */
export default async function bench(): Promise<BenchResult[]> {
  const support = sandboxSupport();
  if (!support.kind) {
    process.stderr.write(`  no OS sandbox here (${support.reason ?? 'unknown'}): sandbox benchmarks not run\n`);
    return [];
  }
  const root = await tempDir('deft-bench-sandbox-');
  const workspace = join(root, 'ws');
  await mkdir(join(workspace, '.git', 'hooks'), { recursive: true });
  const core = new Sandbox({ workspace, home: join(root, 'home', '.deft'), userHome: join(root, 'home'), headless: true });
  const sandbox = core.forSession('bench', async () => ({ allowed: false, reason: 'bench' }));
  const off = new Sandbox({ workspace, home: join(root, 'home', '.deft'), support: { kind: null } }).forSession('bench-off', async () => ({
    allowed: false,
    reason: 'bench',
  }));
  const env = await off.env();
  try {
    for (let i = 0; i < 5; i++) {
      await sandboxed(sandbox, workspace, 'true');
      await run('/bin/bash', ['-c', 'true'], env, workspace);
    }
    const inSandbox = await median(41, async () => {
      const t0 = performance.now();
      await sandboxed(sandbox, workspace, 'true');
      return performance.now() - t0;
    });
    const plain = await median(41, async () => {
      const t0 = performance.now();
      await run('/bin/bash', ['-c', 'true'], env, workspace);
      return performance.now() - t0;
    });
    const hundred = async (each: () => Promise<void>) => {
      const t0 = performance.now();
      for (let i = 0; i < 100; i++) await each();
      return performance.now() - t0;
    };
    const many = await hundred(() => sandboxed(sandbox, workspace, 'echo $RANDOM > /dev/null'));
    const manyPlain = await hundred(() => run('/bin/bash', ['-c', 'echo $RANDOM > /dev/null'], env, workspace));
    return [
      {
        name: `sandboxed \`true\` (${support.kind}, median of 41)`,
        value: inSandbox,
        unit: 'ms',
        baseline: { name: 'bash -c true, unsandboxed', value: plain },
        note: `added ${(inSandbox - plain).toFixed(1)} ms (goal ≤ 30 ms)`,
      },
      {
        name: '100 sandboxed commands in a row',
        value: many,
        unit: 'ms',
        baseline: { name: '100 unsandboxed', value: manyPlain },
        note: `${(many / 100).toFixed(1)} ms each`,
      },
    ];
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
