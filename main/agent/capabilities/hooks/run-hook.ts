import type { SessionSandbox, SpawnPlan } from '#contract/sandbox';
import { killLeftovers, killTree, trackGroup } from '#infra/processes/kill-tree';
import { resolveShell } from '#infra/processes/shell-path';

/** What one hook command did. */
export interface HookRun {
  /** null when it did not exit by itself (timed out, stopped, failed to start). */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** It could not be started, or was stopped because the turn was. */
  failure?: string;
  sandboxed: boolean;
}

export interface HookCommand {
  command: string;
  /** The JSON event, written to its stdin. */
  input: string;
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  sandbox: SessionSandbox;
  /** Run it in the OS sandbox (when on); otherwise as the user, with the scrubbed environment. */
  sandboxed: boolean;
  /** Who asks, if the hook wants a host the settings do not allow. */
  label: string;
  turnId?: string;
  callId?: string;
  signal?: AbortSignal;
}

/** More than a hook could usefully say; the rest is dropped (the model and the window see a capped part anyway). */
const MAX_STREAM_BYTES = 1024 * 1024;
/** After the hook exits, how long its output streams may stay open (a child it left behind holding them). */
const CLOSE_GRACE_MS = 500;
/** A stopped hook gets this long between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2_000;

class Collector {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;

  add(chunk: Buffer): void {
    const room = MAX_STREAM_BYTES - this.bytes;
    if (room <= 0) return;
    const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(piece);
    this.bytes += piece.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/**
 * Run one hook command: `bash -c <command>` (else sh) in the workspace, planned through the session's OS
 * sandbox when `sandboxed` (the plain command with the scrubbed environment when it is not, or the sandbox is off), the event on stdin,
 * in a process group of its own. At its timeout, or when `signal` aborts, its whole process tree is stopped.
 * Never rejects.
 */
export async function runHookCommand(hook: HookCommand): Promise<HookRun> {
  let plan: Pick<SpawnPlan, 'file' | 'args' | 'cwd' | 'env' | 'sandboxed' | 'release'>;
  try {
    const argv = [resolveShell(), '-c', hook.command];
    plan = hook.sandboxed
      ? await hook.sandbox.plan({
          argv,
          cwd: hook.cwd,
          env: hook.env,
          label: hook.label,
          ...(hook.turnId ? { turnId: hook.turnId } : {}),
          ...(hook.callId ? { callId: hook.callId } : {}),
        })
      : { file: argv[0]!, args: argv.slice(1), cwd: hook.cwd, env: await hook.sandbox.env(hook.env), sandboxed: false, release: () => {} };
  } catch (error) {
    return { exitCode: null, stdout: '', stderr: '', timedOut: false, sandboxed: false, failure: `it could not be prepared: ${(error as Error).message}` };
  }
  const stdout = new Collector();
  const stderr = new Collector();
  return new Promise<HookRun>((resolve) => {
    let settled = false;
    let timedOut = false;
    let stopped: string | undefined;
    let exitCode: number | null = null;
    let grace: ReturnType<typeof setTimeout> | undefined;
    const child = process
      .getBuiltinModule('node:child_process')
      .spawn(plan.file, plan.args, { cwd: plan.cwd, env: plan.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const pid = child.pid;
    if (pid !== undefined) trackGroup(pid);
    const stop = (why: 'timeout' | 'abort') => {
      if (settled || pid === undefined) return;
      if (why === 'timeout') timedOut = true;
      else stopped = 'it was stopped because the turn was';
      void killTree({ pid }, KILL_GRACE_MS);
    };
    const onAbort = () => stop('abort');
    const finish = (failure?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      hook.signal?.removeEventListener('abort', onAbort);
      // Whatever it left running (a child holding its output open) goes with it.
      if (pid !== undefined) void killLeftovers([{ pid }], 200);
      plan.release();
      const why = failure ?? stopped;
      resolve({
        exitCode: timedOut || stopped ? null : exitCode,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        sandboxed: plan.sandboxed,
        ...(why ? { failure: why } : {}),
      });
    };
    child.stdout.on('data', (chunk: Buffer) => stdout.add(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.add(chunk));
    // A hook that does not read its stdin closes the pipe: that is its business, not an error.
    child.stdin.on('error', () => {});
    child.stdin.end(hook.input);
    child.once('error', (error) => finish(`it could not be started: ${error.message}`));
    child.once('exit', (code, signal) => {
      exitCode = code ?? (signal ? 128 : null);
      grace = setTimeout(() => finish(), CLOSE_GRACE_MS);
    });
    child.once('close', () => finish());
    const timer = setTimeout(() => stop('timeout'), hook.timeoutMs);
    if (hook.signal?.aborted) stop('abort');
    else hook.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
