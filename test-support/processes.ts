import { execFileSync } from 'node:child_process';

/** Live (non-zombie) processes whose command line starts with `prefix`, from the real process table (`ps`). */
export function processesMatching(prefix: string): string[] {
  const out = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && !m[2]!.startsWith('Z') && m[3]!.startsWith(prefix))
    .map((m) => `${m[1]} ${m[3]}`);
}

/** A sleep duration no other test or process uses, so `ps` finds exactly this test's sleepers. */
export function uniqueSleep(): string {
  return `${4000 + Math.floor(Math.random() * 5000)}.${Math.floor(Math.random() * 1000)}`;
}

/** Poll until `check` passes or `ms` elapse. */
export async function eventually<T>(check: () => T | Promise<T>, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}
