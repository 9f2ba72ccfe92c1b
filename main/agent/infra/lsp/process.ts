import type { Readable, Writable } from 'node:stream';
import { signalGroup } from '../processes/kill-tree';
import type { ServerSpec } from './server-specs';

/** How one server's process is started on this machine: planned by the OS sandbox (or not), with the environment it gets. */
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

/** Plans how to start a server here (the capability builds it from the workspace sandbox; tests may start servers plainly). */
export type ServerLauncher = (spec: ServerSpec, cwd: string) => Promise<ServerLaunch>;

/** How a server process ended. */
export interface ServerExit {
  code: number | null;
  signal: string | null;
}

/** A started server process, wherever it runs: its pipes, how to stop it, and a promise of its end. */
export interface ServerProcess {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Its id on the machine it runs on. */
  readonly pid: number | undefined;
  readonly sandboxed: boolean;
  /**
   * The pid the server is told is its client's (LSP's `processId`: servers exit when it is gone); null where Deft's pid
   * names nothing — inside the sandbox's process namespace, or on another machine.
   */
  readonly clientPid: number | null;
  readonly exited: Promise<ServerExit>;
  /** Ends the process and everything it started, after `graceMs` by SIGKILL. */
  kill(graceMs?: number): void;
}

/** Starts a server's process: on this machine (`localServerStarter`) or on the workspace's (`environmentServerStarter`). */
export type ServerStarter = (spec: ServerSpec, cwd: string) => Promise<ServerProcess>;

/**
 * The one place Deft spawns a language server on this machine. The process leads a process group of its own, so
 * stopping it stops what it started (tsserver, a typings installer) too.
 */
export function localServerStarter(launch: ServerLauncher): ServerStarter {
  return async (spec, cwd) => {
    const plan = await launch(spec, cwd);
    let child;
    try {
      child = process
        .getBuiltinModule('node:child_process')
        .spawn(plan.file, plan.args, { cwd: plan.cwd, env: plan.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true, windowsHide: true });
    } catch (error) {
      plan.release();
      throw error;
    }
    const exited = new Promise<ServerExit>((resolve) => {
      let done = false;
      const finish = (code: number | null, signal: string | null) => {
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
      stdin: child.stdin,
      stdout: child.stdout,
      stderr: child.stderr,
      pid: child.pid,
      sandboxed: plan.sandboxed,
      // Inside the sandbox's process namespace Deft's pid names nothing (typescript-language-server would exit at
      // once); there the sandbox ends the server with Deft instead.
      clientPid: plan.sandboxed ? null : process.pid,
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
  };
}
