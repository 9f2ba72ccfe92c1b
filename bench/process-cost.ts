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

/**
 * Run `argv` to its end and measure it. With GNU time (/usr/bin/time) the figures come from wait4's rusage,
 * which includes the CPU of every child the process waited for (git, shells); without it, from bash's `times`.
 */
export function measureProcess(argv: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ProcessCost> {
  const useTime = existsSync(TIME);
  const command = useTime ? [TIME, '-f', '\n@@ %e %U %S %M', ...argv] : ['bash', '-c', '"$@" >/dev/null; echo "@@ $(times | tail -1)" >&2', 'bash', ...argv];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command[0]!, command.slice(1), { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      const line = stderr
        .split('\n')
        .reverse()
        .find((l) => l.startsWith('@@ '));
      if (!line) return reject(new Error(`no timing for ${argv.join(' ')}: ${stderr.slice(-400)}`));
      if (useTime) {
        const [, , user, sys, kb] = line.split(' ');
        const exit = /Command exited with non-zero status (\d+)/.exec(stderr)?.[1];
        return resolve({ wallMs, cpuMs: (Number(user) + Number(sys)) * 1000, rssMiB: Number(kb) / 1024, code: exit ? Number(exit) : code });
      }
      // bash `times`: "0m0.123s 0m0.045s" (children's user and system time)
      const [user = 0, sys = 0] = [...line.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
      resolve({ wallMs, cpuMs: (user + sys) * 1000, rssMiB: 0, code });
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

/** The median of `runs` measurements. */
export async function medianCost(runs: number, measure: () => Promise<ProcessCost>): Promise<ProcessCost> {
  const all: ProcessCost[] = [];
  for (let i = 0; i < runs; i++) all.push(await measure());
  const mid = <K extends keyof ProcessCost>(key: K) => [...all.map((c) => c[key] as number)].sort((a, b) => a - b)[Math.floor(all.length / 2)]!;
  return { wallMs: mid('wallMs'), cpuMs: mid('cpuMs'), rssMiB: mid('rssMiB'), code: all.find((c) => c.code !== 0)?.code ?? 0 };
}
