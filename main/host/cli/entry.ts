import { onStopSignals } from '../stop-signals';
import { runCli } from './cli';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Entry used by bin/deft.mjs. */
export async function main(argv: string[]): Promise<void> {
  const code = await runCli(argv, {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    readStdin,
    // SIGTERM and SIGHUP too: the turn is stopped and its commands killed before the process exits.
    onInterrupt: (handler) => onStopSignals(() => handler()),
  });
  await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  process.exit(code);
}
