import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = resolve(import.meta.dirname, '..');
// Resolved here: the run's working folder (a temp workspace) has no node_modules.
const TSX = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href;
const ENTRY = `const { main } = await import(${JSON.stringify(join(ROOT, 'main/host/cli/entry.ts'))}); await main(process.argv.slice(1));`;

/** The program and first arguments that run the CLI's own entry through tsx: `[...cliCommand(), 'run', …]`. */
export function cliCommand(): string[] {
  return [process.execPath, '--import', TSX, '--import', pathToFileURL(join(ROOT, 'scripts/raw-loader.mjs')).href, '--input-type=module', '-e', ENTRY, '--'];
}

/**
 * `deft …` as a process of its own (the CLI's own entry, through tsx): for attacks that, when they work,
 * freeze the process — an in-process test would freeze with it instead of failing. A run still going after
 * `timeoutMs` is killed and reported as `timedOut`.
 */
export async function runCliProcess(
  args: readonly string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs?: number /** Piped to stdin, then closed (else stdin is /dev/null). */; stdin?: string },
): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> {
  const [program, ...first] = cliCommand();
  const child = spawn(program!, [...first, ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? options.cwd, ...options.env },
    stdio: [options.stdin !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs ?? 90_000);
  const code = await new Promise<number | null>((done) => child.once('close', (exit) => done(exit)));
  clearTimeout(timer);
  return { code, stdout, stderr, timedOut };
}
