import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** What one process (and every process it waited for) cost: wall time, CPU time (user + system) and peak RSS. */
export interface ProcessCost {
  wallMs: number;
  cpuMs: number;
  /** Peak resident memory of the process (or of the largest process it waited for), MiB; 0 where unknown. */
  rssMiB: number;
  code: number | null;
}

const TIME = '/usr/bin/time';

/** Runs `"$@"` and reports the CPU of what it ran (and everything that waited for) on stderr, in ms steps: bash's `times`. */
// (`times` itself, not in a $(…) subshell, which has no children: its second line is the children's user and system time.)
const TIMES = '"$@" >/dev/null; code=$?; printf "@@T " >&2; times >&2; exit $code';

/**
 * Run `argv` to its end and measure it. The CPU time comes from bash's `times` (wait4's rusage: the process
 * and every child it waited for, git and shells included; in ms, where GNU time counts in 10 ms steps); peak
 * RSS from GNU time (/usr/bin/time) where installed.
 */
export function measureProcess(argv: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ProcessCost> {
  const useTime = existsSync(TIME);
  const timed = ['bash', '-c', TIMES, 'bash', ...argv];
  const command = useTime ? [TIME, '-f', '\n@@ %e %U %S %M', ...timed] : timed;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      const lines = stderr.split('\n');
      // bash `times` after "@@T ": the shell's own line, then the children's: "0m0.123s 0m0.045s" (user, system)
      const times = lines[lines.findLastIndex((l) => l.startsWith('@@T ')) + 1];
      if (!times) return reject(new Error(`no timing for ${argv.join(' ')}: ${stderr.slice(-400)}`));
      const [user = 0, sys = 0] = [...times.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
      const cpuMs = (user + sys) * 1000;
      const line = lines.findLast((l) => l.startsWith('@@ '));
      if (useTime && line) {
        const kb = line.split(' ')[4];
        const exit = /Command exited with non-zero status (\d+)/.exec(stderr)?.[1];
        return resolve({ wallMs, cpuMs, rssMiB: Number(kb) / 1024, code: exit ? Number(exit) : code });
      }
      resolve({ wallMs, cpuMs, rssMiB: 0, code });
    });
  });
}

/**
 * The programs `argv` started (every execve after its own), by name; null where strace is not installed.
 * Asynchronous: the mock model server the run talks to lives in this process, so a synchronous spawn would
 * leave the run waiting for an answer that can never come.
 */
export async function programsStarted(argv: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<string[] | null> {
  const strace = ['/usr/bin/strace', '/bin/strace'].find(existsSync);
  if (!strace) return null;
  const log = `${process.env.TMPDIR ?? '/tmp'}/deft-bench-strace-${process.pid}.txt`;
  await new Promise<void>((resolve, reject) => {
    const child = spawn(strace, ['-f', '-qq', '-e', 'trace=execve', '-e', 'signal=none', '-o', log, ...argv], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: 'ignore',
    });
    child.once('error', reject);
    child.once('close', () => resolve());
  });
  const started = readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l.includes('execve(') && !l.includes('= -1'))
    .map((l) => /execve\("([^"]+)"/.exec(l)?.[1] ?? '?');
  return started.slice(1).map((p) => p.slice(p.lastIndexOf('/') + 1));
}

/** The median of measurements, figure by figure. */
function median(all: readonly ProcessCost[]): ProcessCost {
  const mid = <K extends keyof ProcessCost>(key: K) => [...all.map((c) => c[key] as number)].sort((a, b) => a - b)[Math.floor(all.length / 2)]!;
  return { wallMs: mid('wallMs'), cpuMs: mid('cpuMs'), rssMiB: mid('rssMiB'), code: all.find((c) => c.code !== 0)?.code ?? 0 };
}

/** The median of `runs` measurements. */
export async function medianCost(runs: number, measure: () => Promise<ProcessCost>): Promise<ProcessCost> {
  const all: ProcessCost[] = [];
  for (let i = 0; i < runs; i++) all.push(await measure());
  return median(all);
}

/**
 * The medians of several measurements taken in turns (a, b, c, a, b, c…), one per measurement: on a shared
 * machine the load changes from second to second, and taken in turns a figure and its baseline bear it alike.
 */
export async function interleavedMedians(runs: number, measures: readonly (() => Promise<ProcessCost>)[]): Promise<ProcessCost[]> {
  const all: ProcessCost[][] = measures.map(() => []);
  for (let i = 0; i < runs; i++) for (const [n, measure] of measures.entries()) all[n]!.push(await measure());
  return all.map(median);
}
