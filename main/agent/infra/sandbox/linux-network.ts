import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SandboxSupport } from './availability';
import { NetworkProxy } from './proxy';

/** The port the proxy answers on inside the sandbox's network (127.0.0.1). */
export const SANDBOX_PROXY_PORT = 3128;

/**
 * The network every sandboxed command of this process shares (Linux): a network namespace with only
 * loopback, where socat carries 127.0.0.1:3128 to Deft's proxy on a unix socket. Commands join it, so a
 * server one command starts is reachable from the next, and nothing but the proxy leads out. One
 * namespace, created once, costs each command nothing (a namespace and a socat per command cost 30+ ms).
 */
export interface SandboxNetwork {
  /** The argv prefix that runs a program inside the namespace (nsenter …). */
  enter: string[];
  /** bwrap arguments for the user a command runs as (non-root: back to the caller's ids). */
  userArgs: string[];
  proxy: NetworkProxy;
  readonly alive: boolean;
}

let shared: Promise<SandboxNetwork | null> | null = null;

/** The shared sandbox network, started on first use (null when socat or nsenter is missing or it cannot start). */
export function linuxSandboxNetwork(support: SandboxSupport): Promise<SandboxNetwork | null> {
  if (shared) {
    return shared.then((network) => {
      if (network?.alive !== false) return network;
      shared = null;
      return linuxSandboxNetwork(support);
    });
  }
  shared = start(support).catch(() => null);
  return shared;
}

/** Stop the shared network (tests; the process exiting stops it too). */
export async function stopLinuxSandboxNetwork(): Promise<void> {
  const network = await shared;
  shared = null;
  await network?.proxy.close();
}

function listening(pid: number): boolean {
  try {
    const line = ` 0100007F:${SANDBOX_PROXY_PORT.toString(16).toUpperCase().padStart(4, '0')} 00000000:0000 0A `;
    return readFileSync(`/proc/${pid}/net/tcp`, 'utf8').includes(line);
  } catch {
    return false;
  }
}

async function start(support: SandboxSupport): Promise<SandboxNetwork | null> {
  if (!support.program || !support.socat || !support.nsenter) return null;
  const dir = mkdtempSync(join(tmpdir(), 'deft-net-'));
  const socketPath = join(dir, 'proxy.sock');
  const proxy = await NetworkProxy.listen({ path: socketPath });
  const root = process.getuid?.() === 0;
  const holder: ChildProcess = process.getBuiltinModule('node:child_process').spawn(
    support.program,
    [
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--unshare-net',
      '--unshare-pid',
      '--new-session',
      '--die-with-parent',
      '--cap-drop',
      'ALL',
      // Not root: map us to root in the namespace's user namespace, so nsenter keeps the rights it needs to join.
      ...(root ? [] : ['--unshare-user', '--uid', '0', '--gid', '0']),
      '--info-fd',
      '3',
      '--',
      support.socat,
      `TCP-LISTEN:${SANDBOX_PROXY_PORT},bind=127.0.0.1,fork,reuseaddr`,
      `UNIX-CONNECT:${socketPath}`,
    ],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe'], detached: false },
  );
  let info = '';
  const pipe = holder.stdio[3] as NodeJS.ReadableStream | null;
  pipe?.setEncoding('utf8');
  pipe?.on('data', (chunk: string) => (info += chunk));
  let alive = true;
  holder.once('exit', () => {
    alive = false;
    void proxy.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const deadline = Date.now() + 5_000;
  let pid = 0;
  while (Date.now() < deadline && alive) {
    pid ||= Number(/"child-pid":\s*(\d+)/.exec(info)?.[1] ?? 0);
    if (pid && listening(pid)) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  if (!alive || !pid || !listening(pid)) {
    holder.kill('SIGKILL');
    return null;
  }
  holder.unref();
  (pipe as unknown as { unref?: () => void })?.unref?.();
  const enter = root ? [support.nsenter, '-t', String(pid), '-n', '--'] : [support.nsenter, '-t', String(pid), '-U', '-n', '--preserve-credentials', '--'];
  const userArgs = root ? [] : ['--unshare-user', '--uid', String(process.getuid?.() ?? 0), '--gid', String(process.getgid?.() ?? 0)];
  if (
    process
      .getBuiltinModule('node:child_process')
      .spawnSync(enter[0]!, [...enter.slice(1), support.program, ...userArgs, '--ro-bind', '/', '/', '--cap-drop', 'ALL', '--', 'true']).status !== 0
  ) {
    holder.kill('SIGKILL');
    return null;
  }
  return {
    enter,
    userArgs,
    proxy,
    get alive() {
      return alive;
    },
  };
}
