import type { Readable } from 'node:stream';
import type { Environment, ExecExit } from '#contract/environment';

/** What a script run as a process printed, and how it ended. */
export interface ShProcessRun {
  out: Buffer;
  err: Buffer;
  exit: ExecExit;
}

/**
 * `sh -c script name args…` on the environment's machine as a process of its own, in `cwd` (a path there), with
 * `input` on its stdin when given — for where no helper shell is (`Environment.runScript`). Never throws for the
 * script's own failure: its exit says it.
 */
export async function runShProcess(
  environment: Environment,
  request: { script: string; name: string; args: readonly string[]; cwd: string; input?: string | Buffer; signal?: AbortSignal },
): Promise<ShProcessRun> {
  const { input } = request;
  const child = environment.exec({
    file: 'sh',
    args: ['-c', request.script, request.name, ...request.args],
    cwd: request.cwd,
    stdin: input !== undefined ? 'pipe' : 'ignore',
    ...(request.signal ? { signal: request.signal } : {}),
  });
  const [stdout, stderr] = [collect(child.stdout), collect(child.stderr)];
  if (input !== undefined && child.stdin) {
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  }
  const exit = await child.exit;
  const [out, err] = await Promise.all([stdout, stderr]);
  return { out, err, exit };
}

function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve) => stream.once('close', () => resolve(Buffer.concat(chunks))).once('end', () => resolve(Buffer.concat(chunks))));
}
