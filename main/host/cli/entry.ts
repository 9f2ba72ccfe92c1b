import { onStopSignals } from '../stop-signals';
import { runCli } from './cli';

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

/** Entry used by bin/deft.mjs. */
export async function main(argv: string[]): Promise<void> {
  const interrupts = new Set<() => void>();
  const stdout = pipeSafeStdout(process.stdout, () => interrupts.forEach((stop) => stop()));
  const code = await runCli(argv, {
    stdout: stdout.write,
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    readStdin,
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
