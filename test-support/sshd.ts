import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** A free loopback port. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface TestSshd {
  port: number;
  username: string;
  /** The user's private key (authorised on the server). */
  privateKey: Buffer;
  /** A known_hosts file listing the server's key. */
  knownHosts: string;
  /** The server's public host key line (type + base64). */
  hostKeyLine: string;
  /** The ports of `SshdOptions.variants` (known_hosts lists them too). */
  variants: number[];
  dir: string;
  /** Kill the server's processes for every open connection (as a dropped link would end them); it keeps listening. */
  killConnections(): Promise<number>;
  /** How many connections the server holds open now (one process each). */
  connectionCount(): Promise<number>;
  stop(): Promise<void>;
}

/** The processes whose parent is `pid` (from /proc). */
async function childrenOf(pid: number): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, 'utf8').catch(() => '');
    // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === pid) found.push(Number(name));
  }
  return found;
}

export interface SshdOptions {
  /** PATH for the commands it runs. */
  path?: string;
  /**
   * Folders the server sees in place of others (`from` mounted over `to` in a mount namespace of its own), so the
   * "remote" machine has a folder at a path where this machine has a different one (the trust attack tests). Needs
   * `unshare` and the right to make a mount namespace (root, as in CI); throws when it cannot.
   */
  binds?: ReadonlyArray<{ from: string; to: string }>;
  /**
   * More ports of the same server, each running its commands with this PATH (a machine without bwrap, without git):
   * one sshd, one host key and user key, the same mount namespace. Their ports are `TestSshd.variants`, in order.
   */
  variants?: ReadonlyArray<{ path: string }>;
  /** More sshd_config lines, read before the defaults here (sshd keeps the first value), e.g. `AllowTcpForwarding no`. */
  config?: readonly string[];
  /**
   * The user's home there, without `binds`: `fresh` (the default, where a mount namespace can be made: root) mounts an
   * empty folder over it, so no test runs this machine's own shell start-up — slow (pyenv), and a login shell killed
   * during it (a dropped-connection test) can leave pyenv's rehash lock behind, on which every later login waits;
   * `real` keeps it (the benches that measure a real login).
   */
  home?: 'fresh' | 'real';
}

/**
 * A real OpenSSH server on a loopback port (Debian's openssh-server), with a generated host key, a user key in
 * its authorized_keys and SFTP served in-process. Null when sshd is not installed (the caller says why it skips).
 */
export async function startSshd(options: SshdOptions = {}): Promise<TestSshd | null> {
  const sshd = '/usr/sbin/sshd';
  try {
    execFileSync(sshd, ['-V'], { stdio: 'ignore' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
  }
  // Not the harness's tempDir: the e2e specs start this server too, and the harness loads the whole core.
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'deft-sshd-')));
  const keygen = (file: string) => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file], { stdio: 'ignore' });
  keygen(join(dir, 'host_key'));
  keygen(join(dir, 'user_key'));
  await writeFile(join(dir, 'authorized_keys'), await readFile(join(dir, 'user_key.pub')), { mode: 0o600 });
  await mkdir('/run/sshd', { recursive: true }).catch(() => {});
  const port = await freePort();
  const variants: number[] = [];
  for (const _ of options.variants ?? []) variants.push(await freePort());
  // Each port's PATH in a Match block of its own (sshd keeps the first SetEnv it reads, a global one included).
  const paths = [...(options.path ? [{ port, path: options.path }] : []), ...variants.map((p, i) => ({ port: p, path: options.variants![i]!.path }))];
  const config = join(dir, 'sshd_config');
  await writeFile(
    config,
    [
      `Port ${port}`,
      ...variants.map((p) => `Port ${p}`),
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'PermitRootLogin prohibit-password',
      'Subsystem sftp internal-sftp',
      // First: sshd keeps the first value it reads of an option.
      ...(options.config ?? []),
      // ProxyJump tests use this server as its own jump host.
      'AllowTcpForwarding yes',
      ...paths.flatMap((p) => [`Match LocalPort ${p.port}`, `  SetEnv PATH=${p.path}`]),
      '',
    ].join('\n'),
  );
  const args = ['-D', '-e', '-f', config];
  const freshHome = !options.binds && options.home !== 'real' && process.getuid?.() === 0 ? await mkdtemp(join(tmpdir(), 'deft-sshd-home-')) : null;
  const binds = options.binds ?? (freshHome ? [{ from: freshHome, to: userInfo().homedir }] : undefined);
  // With binds: unshare execs sh, which mounts and execs sshd, so the child's pid is still sshd's.
  const child: ChildProcess = binds?.length
    ? spawn(
        'unshare',
        [
          '--mount',
          '--propagation',
          'private',
          'sh',
          '-c',
          'set -e; while [ "$1" != -- ]; do mount --bind "$1" "$2"; shift 2; done; shift; exec "$@"',
          'sh',
          ...binds.flatMap((b) => [b.from, b.to]),
          '--',
          sshd,
          ...args,
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      )
    : spawn(sshd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sshd did not start: ${log}`)), 10_000);
    const check = () => {
      if ((log.match(/Server listening/g) ?? []).length >= 1 + variants.length) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stderr!.on('data', check);
    child.once('exit', (code) => reject(new Error(`sshd exited (${code}): ${log}`)));
  });
  const [type, key] = (await readFile(join(dir, 'host_key.pub'), 'utf8')).trim().split(/\s+/);
  const hostKeyLine = `${type} ${key}`;
  const knownHosts = join(dir, 'known_hosts');
  // Listed under 127.0.0.1 and localhost: two names of one server give two remote folder keys (the trust tests).
  await writeFile(knownHosts, [port, ...variants].map((p) => `[127.0.0.1]:${p} ${hostKeyLine}\n[localhost]:${p} ${hostKeyLine}\n`).join(''));
  return {
    port,
    username: userInfo().username,
    privateKey: await readFile(join(dir, 'user_key')),
    knownHosts,
    hostKeyLine,
    variants,
    dir,
    connectionCount: async () => (await childrenOf(child.pid!)).length,
    killConnections: async () => {
      const connections = await childrenOf(child.pid!);
      for (const pid of connections) process.kill(pid, 'SIGKILL');
      return connections.length;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await rm(dir, { recursive: true, force: true });
      if (freshHome) await rm(freshHome, { recursive: true, force: true });
    },
  };
}
