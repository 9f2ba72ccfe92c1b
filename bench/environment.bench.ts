import { readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Environment } from '../main/agent/contract/environment';
import { LocalEnvironment } from '../main/agent/infra/environment/local/local-environment';
import { SshEnvironment } from '../main/agent/infra/environment/ssh/ssh-environment';
import { tempDir } from '../test-support/harness';
import { startSshd } from '../test-support/sshd';
import { type BenchResult, median } from './types';

const RUNS = 15;
const run = promisify(execFile);

async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function drain(env: Environment, file: string, args: string[], cwd: string): Promise<void> {
  const proc = env.exec({ file, args, cwd });
  proc.stdout.resume();
  proc.stderr.resume();
  await proc.exit;
}

/** The environment layer: local backend vs direct node calls (must not regress), and SSH over loopback vs local. */
export default async function bench(): Promise<BenchResult[]> {
  const dir = await tempDir('deft-bench-env-');
  const file = join(dir, 'thousand.txt');
  await writeFile(file, Array.from({ length: 1000 }, (_, i) => `line ${i} ${'x'.repeat(40)}`).join('\n'));
  for (let i = 0; i < 200; i++) await writeFile(join(dir, `f${i}.txt`), 'x');
  const local = new LocalEnvironment();
  const sshd = await startSshd({ home: 'real' });
  const ssh = sshd
    ? await SshEnvironment.connect({
        host: '127.0.0.1',
        port: sshd.port,
        username: sshd.username,
        privateKey: sshd.privateKey,
        knownHostsFiles: [sshd.knownHosts],
      })
    : null;
  const ops: Array<{ name: string; baseline: string; direct: () => Promise<unknown>; via: (env: Environment) => Promise<unknown> }> = [
    {
      name: 'read 1,000 lines (streamed)',
      baseline: 'readFile whole (not streamed)',
      direct: () => readFile(file, 'utf8'),
      via: async (env) => {
        for await (const _ of env.readLines(file)) void _;
      },
    },
    {
      name: 'replaceFile (atomic, fsync)',
      baseline: 'writeFile (not atomic)',
      direct: () => writeFile(join(dir, 'w.txt'), 'hello\n'),
      via: (env) => env.replaceFile(join(dir, 'w.txt'), 'hello\n'),
    },
    { name: 'stat', baseline: 'fs.stat', direct: () => stat(file), via: (env) => env.stat(file) },
    { name: 'readdir (200)', baseline: 'fs.readdir', direct: () => readdir(dir, { withFileTypes: true }), via: (env) => env.readdir(dir) },
    { name: 'exec true', baseline: 'execFile true', direct: () => run('true'), via: (env) => drain(env, 'true', [], dir) },
  ];
  const results: BenchResult[] = [];
  for (const op of ops) {
    const direct = await median(RUNS, () => time(op.direct));
    const viaLocal = await median(RUNS, () => time(() => op.via(local)));
    results.push({ name: `environment: local ${op.name}`, value: viaLocal, unit: 'ms', baseline: { name: op.baseline, value: direct } });
    if (ssh) {
      const viaSsh = await median(RUNS, () => time(() => op.via(ssh)));
      results.push({ name: `environment: SSH (loopback) ${op.name}`, value: viaSsh, unit: 'ms', baseline: { name: 'local backend', value: viaLocal } });
    }
  }
  await ssh?.close();
  await sshd?.stop();
  return results;
}
