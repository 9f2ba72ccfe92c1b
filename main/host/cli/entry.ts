import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { onStopSignals } from '../stop-signals';
import { HELP } from './usage';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * stdout that survives its reader going away (`deft run … | head`): instead of an unhandled EPIPE
 * crash, further output is dropped and `onClosed` runs once (the turn is stopped, as with Ctrl-C).
 */
export function pipeSafeStdout(stream: NodeJS.WritableStream, onClosed: () => void): { write: (text: string) => void; readonly closed: boolean } {
  let closed = false;
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    if (closed) return;
    closed = true;
    onClosed();
  });
  return {
    write: (text) => {
      if (!closed) stream.write(text);
    },
    get closed() {
      return closed;
    },
  };
}

/** Deft's version, from the package.json above this file (the source's or the build's). */
export function deftVersion(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'deft' && pkg.version) return pkg.version;
    } catch {
      // not here: look further up
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}

/** `deft --help` and `deft --version`, answered before the application is loaded; null for anything else. */
export function quickAnswer(argv: readonly string[]): string | null {
  if (argv.length !== 1) return null;
  if (argv[0] === '--help' || argv[0] === '-h') return `${HELP}\n`;
  if (argv[0] === '--version' || argv[0] === '-v') return `deft ${deftVersion()}\n`;
  return null;
}

/**
 * The lines of `input`, iterated from the moment the reader is made: readline makes its async iterator on first
 * use and drops the lines it read before that — the prompt a program writes at once, while the run is still
 * setting up, would be lost and the run would wait for it forever.
 */
export function lineReader(input: NodeJS.ReadableStream): AsyncIterable<string> {
  return createInterface({ input, crlfDelay: Infinity })[Symbol.asyncIterator]();
}

/** Entry used by bin/deft.mjs. */
export async function main(argv: string[]): Promise<void> {
  const quick = quickAnswer(argv);
  if (quick !== null) {
    process.stdout.write(quick);
    return;
  }
  if (argv[0] === 'acp') {
    // stdout carries the protocol alone: whatever else would print there goes to stderr.
    console.log = console.info = console.error;
    const { runAcp } = await import('../acp/acp-cli');
    const code = await runAcp(argv.slice(1), {
      input: process.stdin,
      output: process.stdout,
      version: deftVersion(),
      stdout: () => {},
      stderr: (text) => process.stderr.write(text),
      env: process.env,
      cwd: process.cwd(),
    });
    process.exit(code);
  }
  // The application is loaded only for a command that needs it.
  const { runCli } = await import('./cli');
  const interrupts = new Set<() => void>();
  const stdout = pipeSafeStdout(process.stdout, () => interrupts.forEach((stop) => stop()));
  const code = await runCli(argv, {
    stdout: stdout.write,
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    readStdin,
    stdinLines: () => lineReader(process.stdin),
    // SIGTERM and SIGHUP too: the turn is stopped and its commands killed before the process exits.
    onInterrupt: (handler) => {
      const removeSignals = onStopSignals(() => handler());
      interrupts.add(handler);
      return () => {
        removeSignals();
        interrupts.delete(handler);
      };
    },
  });
  if (stdout.closed) process.exit(141); // 128 + SIGPIPE, as a shell reports a reader that went away
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code);
}
