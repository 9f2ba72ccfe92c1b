import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gitBinary, runGit, runGitInRepository } from '../main/agent/infra/git/git';
import { tempDir } from '../test-support/harness';
import { type BenchResult, median } from './types';

const RUNS = 41;

/** CPU time (ms) of this process's children that have ended (Linux: cutime + cstime); null elsewhere. */
function childrenCpuMs(): number | null {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    // After "pid (comm) ": state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return null;
  }
}

function plainGit(cwd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`git ${args[0]} exited with ${code}`))));
  });
}

async function measure(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number | null }> {
  for (let i = 0; i < 3; i++) await fn();
  const before = childrenCpuMs();
  const wall = await median(RUNS, async () => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  });
  const after = childrenCpuMs();
  return { wall, cpu: before === null || after === null ? null : (after - before) / RUNS };
}

const cpuNote = (hardened: number | null, plain: number | null, extra: string) =>
  `${hardened === null || plain === null ? 'CPU n/a' : `CPU per call ${hardened.toFixed(1)} ms vs ${plain.toFixed(1)} ms`}; ${extra}`;

/**
 * The price of Deft's hardened git (infra/git) against plain git on the same repository of 2,000 files:
 * `git status` (the prompt's git facts: the filter drivers are listed first, so two processes) and
 * `git rev-parse` (one process: the settings on the command line and the environment built from nothing).
 */
export default async function bench(): Promise<BenchResult[]> {
  if (!gitBinary()) {
    process.stderr.write('  git not found: git benchmarks not run\n');
    return [];
  }
  const repo = await tempDir('deft-bench-git-');
  try {
    const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo, env });
    for (let d = 0; d < 40; d++) {
      await mkdir(join(repo, `dir${d}`));
      for (let f = 0; f < 50; f++) await writeFile(join(repo, `dir${d}`, `file${f}.ts`), `export const value${f} = ${d * 50 + f};\n`);
    }
    execFileSync('git', ['add', '.'], { cwd: repo, env });
    execFileSync('git', ['-c', 'user.email=b@e.nch', '-c', 'user.name=Bench', 'commit', '-qm', 'files'], { cwd: repo, env });
    await writeFile(join(repo, 'dir0', 'file0.ts'), 'changed\n');

    const status = ['status', '--porcelain=v1', '--branch', '--ignore-submodules=all'];
    const hardenedStatus = await measure(() => runGitInRepository({ cwd: repo, args: status }));
    const plainStatus = await measure(() => plainGit(repo, status));
    const revParse = ['rev-parse', '--show-toplevel'];
    const hardenedRevParse = await measure(() => runGit({ cwd: repo, args: revParse }));
    const plainRevParse = await measure(() => plainGit(repo, revParse));
    return [
      {
        name: 'hardened git status (2,000 files, one change)',
        value: hardenedStatus.wall,
        unit: 'ms',
        baseline: { name: 'plain git status', value: plainStatus.wall },
        note: cpuNote(hardenedStatus.cpu, plainStatus.cpu, 'two processes: the filter drivers are listed, then status'),
      },
      {
        name: 'hardened git rev-parse',
        value: hardenedRevParse.wall,
        unit: 'ms',
        baseline: { name: 'plain git rev-parse', value: plainRevParse.wall },
        note: cpuNote(hardenedRevParse.cpu, plainRevParse.cpu, 'one process each'),
      },
    ];
  } finally {
    await rm(repo, { recursive: true, force: true });
  }
}
