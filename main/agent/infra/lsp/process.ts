import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { signalGroup } from '../processes/kill-tree';
import type { ServerSpec } from './server-specs';

/** How one server's process is started: planned by the OS sandbox (or not), with the environment it gets. */
export interface ServerLaunch {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** It runs in the OS sandbox. */
  sandboxed: boolean;
  /** Call once the process has ended (frees what the sandbox set up for it). */
  release(): void;
}

/** Plans how to start a server (the capability builds it from the workspace sandbox; tests may start servers plainly). */
export type ServerLauncher = (spec: ServerSpec, cwd: string) => Promise<ServerLaunch>;

/** A started server process: its pipes, how to stop it, and a promise of its end. */
export interface ServerProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly sandboxed: boolean;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Ends the process and everything it started (its process group), after `graceMs` by SIGKILL. */
  kill(graceMs?: number): void;
}

/**
 * The one place Deft spawns a language server. The process leads a process group of its own, so stopping it stops
 * what it started (tsserver, a typings installer) too.
 */
export async function startServerProcess(spec: ServerSpec, cwd: string, launch: ServerLauncher): Promise<ServerProcess> {
  const plan = await launch(spec, cwd);
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(plan.file, plan.args, { cwd: plan.cwd, env: plan.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true, windowsHide: true });
  } catch (error) {
    plan.release();
    throw error;
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    let done = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (done) return;
      done = true;
      plan.release();
      resolve({ code, signal });
    };
    child.once('exit', finish);
    child.once('error', () => finish(null, null));
  });
  // A pipe error (the server died mid-write) is seen through `exited`; it must not crash Deft.
  for (const stream of [child.stdin, child.stdout, child.stderr]) stream.on('error', () => {});
  let killed = false;
  return {
    child,
    sandboxed: plan.sandboxed,
    exited,
    kill: (graceMs = 2_000) => {
      if (killed || child.pid === undefined) return;
      killed = true;
      const pid = child.pid;
      if (!signalGroup(pid, 'SIGTERM')) child.kill('SIGTERM');
      const timer = setTimeout(() => {
        if (!signalGroup(pid, 'SIGKILL')) child.kill('SIGKILL');
      }, graceMs);
      timer.unref();
      void exited.then(() => {
        clearTimeout(timer);
        // What it started may outlive it in the group: end them too.
        signalGroup(pid, 'SIGKILL');
      });
    },
  };
}
