import type { Environment } from '#contract/environment';
import type { HookCommand, HookRun } from './run-hook';

/** As locally: more than a hook could usefully say is dropped; a stopped hook gets this long before SIGKILL. */
const MAX_STREAM_BYTES = 1024 * 1024;
const KILL_GRACE_MS = 2_000;

function collect(stream: NodeJS.ReadableStream): () => string {
  const chunks: Buffer[] = [];
  let bytes = 0;
  stream.on('data', (chunk: Buffer) => {
    const room = MAX_STREAM_BYTES - bytes;
    if (room <= 0) return;
    const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
    chunks.push(piece);
    bytes += piece.length;
  });
  return () => Buffer.concat(chunks).toString('utf8');
}

/**
 * Run a remote workspace's hook on its machine: `<shell> -c <command>` through the Environment's exec, in the
 * workspace there, the event on stdin, the variables added to the login environment there. There is no OS sandbox
 * on that machine (docs/remote.md): the hook runs as the remote user, only once the folder is trusted (the caller's
 * rule), like a command the permission layer let through. Its timeout, or `signal`, ends its whole process tree.
 * Never rejects.
 */
export async function runHookThere(hook: Omit<HookCommand, 'sandbox' | 'sandboxed'>, environment: Environment): Promise<HookRun> {
  const failed = (failure: string): HookRun => ({ exitCode: null, stdout: '', stderr: '', timedOut: false, sandboxed: false, failure });
  let timedOut = false;
  let stopped = false;
  const controller = new AbortController();
  let child;
  try {
    child = environment.exec({
      file: environment.shell(),
      args: ['-c', hook.command],
      cwd: hook.cwd,
      env: hook.env,
      stdin: 'pipe',
      signal: controller.signal,
    });
  } catch (error) {
    return failed(`it could not be started: ${(error as Error).message}`);
  }
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  const stop = (why: 'timeout' | 'abort') => {
    if (why === 'timeout') timedOut = true;
    else stopped = true;
    void child.kill(KILL_GRACE_MS).catch(() => {});
  };
  const timer = setTimeout(() => stop('timeout'), hook.timeoutMs);
  const onAbort = () => stop('abort');
  if (hook.signal?.aborted) stop('abort');
  else hook.signal?.addEventListener('abort', onAbort, { once: true });
  // A hook that does not read its stdin closes it: that is its business, not an error.
  child.stdin?.on('error', () => {});
  child.stdin?.end(hook.input);
  try {
    const exit = await child.exit;
    if (exit.error) return failed(`it could not be started on ${environment.label}: ${exit.error.message}`);
    const why = stopped ? 'it was stopped because the turn was' : undefined;
    return {
      exitCode: timedOut || stopped ? null : (exit.code ?? (exit.signal ? 128 : null)),
      stdout: stdout(),
      stderr: stderr(),
      timedOut,
      sandboxed: false,
      ...(why ? { failure: why } : {}),
    };
  } finally {
    clearTimeout(timer);
    hook.signal?.removeEventListener('abort', onAbort);
    controller.abort();
  }
}
