import { stat } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import type { ExecExit, ExecProcess, ExecRequest } from '#contract/environment';
import { KILL_GRACE_MS, killTree, trackGroup, untrackGroupIfEmpty } from '../../processes/kill-tree';

/** Why a process could not start, in words (node reports a missing folder and a missing program alike). */
async function startError(error: NodeJS.ErrnoException, request: ExecRequest): Promise<ExecExit['error']> {
  const code = error.code ?? 'EIO';
  if (
    code === 'ENOENT' &&
    !(await stat(request.cwd).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  ) {
    return { code, message: `The working directory ${request.cwd} does not exist.` };
  }
  if (code === 'ENOENT') return { code, message: `${request.file} was not found.` };
  return { code, message: error.message };
}

/**
 * A local process in a session (and process group) of its own, so that killing it ends everything it started;
 * processes that left the group are found by the request's marker.
 */
export function execLocal(request: ExecRequest): ExecProcess {
  let child;
  try {
    child = process.getBuiltinModule('node:child_process').spawn(request.file, [...request.args], {
      cwd: request.cwd,
      env: request.env ? { ...request.env } : process.env,
      detached: true,
      stdio: [request.stdin === 'pipe' ? 'pipe' : 'ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
  } catch (error) {
    // Synchronous refusals (a NUL in an argument, a bad option).
    const empty = () => new PassThrough().end();
    return {
      pid: undefined,
      started: Promise.resolve(),
      stdin: null,
      stdout: empty(),
      stderr: empty(),
      exit: Promise.resolve({
        code: null,
        signal: null,
        error: { code: (error as NodeJS.ErrnoException).code ?? 'EINVAL', message: (error as Error).message },
      }),
      kill: async () => {},
    };
  }
  const pid = child.pid;
  if (pid !== undefined) trackGroup(pid, request.marker);
  let stopping: Promise<void> | null = null;
  const kill = (graceMs = KILL_GRACE_MS): Promise<void> => {
    if (pid === undefined) return Promise.resolve();
    stopping ??= killTree({ pid, ...(request.marker ? { marker: request.marker } : {}) }, graceMs);
    return stopping;
  };
  const exit = new Promise<ExecExit>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      if (pid !== undefined) return;
      void startError(error, request).then((e) => resolve({ code: null, signal: null, ...(e ? { error: e } : {}) }));
    });
    child.once('close', (code, signal) => {
      if (pid === undefined) return;
      untrackGroupIfEmpty(pid);
      resolve({ code, signal });
    });
  });
  if (request.signal) {
    const onAbort = () => void kill();
    if (request.signal.aborted) onAbort();
    else request.signal.addEventListener('abort', onAbort, { once: true });
    void exit.then(() => request.signal!.removeEventListener('abort', onAbort));
  }
  return { pid, started: Promise.resolve(), stdin: child.stdin, stdout: child.stdout!, stderr: child.stderr!, exit, kill };
}
