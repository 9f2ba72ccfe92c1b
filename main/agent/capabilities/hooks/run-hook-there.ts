import type { Environment } from '#contract/environment';
import type { SessionSandbox, SpawnPlan } from '#contract/sandbox';
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
 * workspace there, the event on stdin, the variables added to the login environment there. When `hook.sandboxed`
 * (a workspace's hook, unless its entry says `"sandbox": false`) it is planned through `sandbox`, the session's sandbox
 * on that machine (bubblewrap there, infra/sandbox/remote.ts: the workspace writable, secret places hidden, no
 * network); where that machine has no working bubblewrap, or the sandbox is off, it runs as the remote user, like a
 * command the permission layer let through (the status says so once). Only once the folder is trusted (the caller's
 * rule). Its timeout, or `signal`, ends its whole process tree. Never rejects.
 */
export async function runHookThere(hook: Omit<HookCommand, 'sandbox'>, environment: Environment, sandbox: SessionSandbox | undefined): Promise<HookRun> {
  const failed = (failure: string): HookRun => ({ exitCode: null, stdout: '', stderr: '', timedOut: false, sandboxed: false, failure });
  let timedOut = false;
  let stopped = false;
  const controller = new AbortController();
  const argv = [environment.shell(), '-c', hook.command];
  let plan: Pick<SpawnPlan, 'file' | 'args' | 'cwd' | 'env' | 'sandboxed' | 'release'>;
  // A hook meant for the sandbox never runs outside it for want of one: that machine's is always handed in.
  if (hook.sandboxed && !sandbox) return failed(`no sandbox for ${environment.label} was given to run it in`);
  try {
    plan =
      hook.sandboxed && sandbox
        ? await sandbox.plan({
            argv,
            cwd: hook.cwd,
            env: hook.env,
            label: hook.label,
            ...(hook.turnId ? { turnId: hook.turnId } : {}),
            ...(hook.callId ? { callId: hook.callId } : {}),
          })
        : { file: argv[0]!, args: argv.slice(1), cwd: hook.cwd, env: hook.env, sandboxed: false, release: () => {} };
  } catch (error) {
    return failed(`it could not be prepared on ${environment.label}: ${(error as Error).message}`);
  }
  let child;
  try {
    child = environment.exec({ file: plan.file, args: plan.args, cwd: plan.cwd, env: plan.env, stdin: 'pipe', signal: controller.signal });
  } catch (error) {
    plan.release();
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
      sandboxed: plan.sandboxed,
      ...(why ? { failure: why } : {}),
    };
  } finally {
    clearTimeout(timer);
    hook.signal?.removeEventListener('abort', onAbort);
    controller.abort();
    plan.release();
  }
}
