import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { Client, type SFTPWrapper, type Stats } from 'ssh2';
import {
  type DirEntry,
  type Environment,
  type ExecProcess,
  type ExecRequest,
  type FileInfo,
  type RandomReader,
  type WatchEvent,
  type Watcher,
  EnvironmentError,
  isMissing,
} from '#contract/environment';
import { linesOf } from '../lines';
import { checkHostKey, fingerprint, knownHostsLine } from './known-hosts';
import { sftpError, shellQuote } from './sftp-errors';
import { execRemote, runRemote } from './ssh-process';

/** Where to connect and how to prove who we are. */
export interface SshTarget {
  host: string;
  port: number;
  username: string;
  /** A private key (PEM/OpenSSH); with `passphrase` when it has one. */
  privateKey?: Buffer | string;
  passphrase?: string;
  /** The SSH agent's socket (SSH_AUTH_SOCK). */
  agent?: string;
  /** known_hosts files to check the server's key against (never accepted without a match or the user's yes). */
  knownHostsFiles: readonly string[];
  /** Asked for a host known_hosts does not list: true accepts it for this connection. Absent: refused. */
  acceptUnknownHost?: (host: string, fingerprint: string, line: string) => Promise<boolean>;
  readyTimeoutMs?: number;
}

const toInfo = (stats: Stats): FileInfo => ({
  size: stats.size,
  mode: stats.mode,
  mtimeMs: stats.mtime * 1000,
  ino: 0,
  dev: 0,
  nlink: 1,
  isFile: () => stats.isFile(),
  isDirectory: () => stats.isDirectory(),
  isSymbolicLink: () => stats.isSymbolicLink(),
});

const WRITE_CHUNK = 32 * 1024;

/** A folder on another machine, over one SSH connection: SFTP for files, exec channels for processes. */
export class SshEnvironment implements Environment {
  readonly kind = 'ssh' as const;
  readonly path = posix;
  private lostReason: string | null = null;

  private constructor(
    private readonly client: Client,
    private readonly sftp: SFTPWrapper,
    readonly label: string,
    readonly home: string,
    private readonly shellPath: string,
    private readonly ripgrep: string | null,
    private readonly workingDir: string,
  ) {
    client.on('close', () => (this.lostReason ??= `The SSH connection to ${label} was lost.`));
    client.on('error', (error) => (this.lostReason ??= `The SSH connection to ${label} failed: ${error.message}`));
  }

  /** Connect, check the host key, and learn the home folder, shell and ripgrep there. */
  static async connect(target: SshTarget, workingDir?: string): Promise<SshEnvironment> {
    const label = `${target.username}@${target.host}${target.port === 22 ? '' : `:${target.port}`}`;
    const client = new Client();
    let refusal: string | null = null;
    await new Promise<void>((resolve, reject) => {
      client.once('ready', () => resolve());
      client.once('error', (error) => reject(new EnvironmentError('ECONNREFUSED', refusal ?? `Could not connect to ${label}: ${error.message}`)));
      client.connect({
        host: target.host,
        port: target.port,
        username: target.username,
        ...(target.privateKey ? { privateKey: target.privateKey } : {}),
        ...(target.passphrase ? { passphrase: target.passphrase } : {}),
        ...(target.agent ? { agent: target.agent } : {}),
        readyTimeout: target.readyTimeoutMs ?? 20_000,
        keepaliveInterval: 15_000,
        hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
          void (async () => {
            const verdict = await checkHostKey(target.knownHostsFiles, target.host, target.port, key);
            const print = fingerprint(key);
            if (verdict.status === 'known') return verify(true);
            if (verdict.status === 'changed') {
              refusal = `The host key of ${label} has CHANGED (now ${print}; ${verdict.file} line ${verdict.line} lists another). Someone may be intercepting the connection, or the server was reinstalled. Deft refuses it; check with the server's administrator, then remove the old line from ${verdict.file}.`;
              return verify(false);
            }
            const line = knownHostsLine(target.host, target.port, key);
            if (target.acceptUnknownHost && (await target.acceptUnknownHost(label, print, line))) return verify(true);
            refusal = `${label} is not a known host: its key fingerprint is ${print}. If that is the server's key, accept it by adding this line to ~/.ssh/known_hosts (or connect once with ssh):\n${line}`;
            verify(false);
          })().catch(() => verify(false));
        },
      });
    });
    // Small requests answered one at a time (a stat, a readdir page): without TCP_NODELAY each waits out Nagle's
    // algorithm against the server's delayed ACK, about 40 ms per round trip.
    client.setNoDelay(true);
    const sftp = await new Promise<SFTPWrapper>((resolve, reject) =>
      client.sftp((error, s) => (error ? reject(new EnvironmentError('EIO', `SFTP is not available on ${label}: ${error.message}`)) : resolve(s))),
    );
    const probe = await runRemote(client, 'printf "%s\\n" "$HOME"; command -v bash || echo /bin/sh; command -v rg || echo');
    const [home = '/', shell = '/bin/sh', rg = ''] = probe.stdout.split('\n');
    return new SshEnvironment(client, sftp, label, home, shell.trim() || '/bin/sh', rg.trim() || null, workingDir ?? home);
  }

  cwd(): string {
    return this.workingDir;
  }
  shell(): string {
    return this.shellPath;
  }

  private call<T>(op: string, path: string, run: (done: (error: unknown, value?: T) => void) => void): Promise<T> {
    if (this.lostReason) return Promise.reject(new EnvironmentError('ECONNRESET', this.lostReason, path));
    return new Promise<T>((resolve, reject) =>
      run((error, value) =>
        error ? reject(this.lostReason ? new EnvironmentError('ECONNRESET', this.lostReason, path) : sftpError(error, op, path)) : resolve(value as T),
      ),
    );
  }

  async stat(path: string): Promise<FileInfo> {
    return toInfo(await this.call<Stats>('stat', path, (done) => this.sftp.stat(path, done)));
  }
  async lstat(path: string): Promise<FileInfo> {
    return toInfo(await this.call<Stats>('lstat', path, (done) => this.sftp.lstat(path, done)));
  }
  realpath(path: string): Promise<string> {
    return this.call<string>('realpath', path, (done) => this.sftp.realpath(path, done));
  }
  readlink(path: string): Promise<string> {
    return this.call<string>('readlink', path, (done) => this.sftp.readlink(path, done));
  }

  async openRead(path: string): Promise<RandomReader> {
    const handle = await this.call<Buffer>('open', path, (done) => this.sftp.open(path, 'r', done));
    const stats = await this.call<Stats>('fstat', path, (done) => this.sftp.fstat(handle, done));
    if (stats.isDirectory()) {
      this.sftp.close(handle, () => {});
      throw new EnvironmentError('EISDIR', `${path} is a folder.`, path);
    }
    return {
      size: stats.size,
      read: async (into, position, length) => {
        let total = 0;
        const wanted = Math.min(length, into.length);
        // The server may return less than asked (its packet limit): read on until the span is filled or the file ends.
        while (total < wanted) {
          const got = await this.call<number>('read', path, (done) =>
            this.sftp.read(handle, into, total, wanted - total, position + total, (error, bytes) => done(error, bytes)),
          );
          if (!got) break;
          total += got;
        }
        return total;
      },
      close: () => this.call<void>('close', path, (done) => this.sftp.close(handle, done)),
    };
  }

  async readBytes(path: string): Promise<Buffer> {
    return this.call<Buffer>('read', path, (done) => this.sftp.readFile(path, done));
  }
  async readText(path: string): Promise<string> {
    return (await this.readBytes(path)).toString('utf8');
  }
  readLines(path: string, signal?: AbortSignal): AsyncIterable<string> {
    return linesOf(() => this.openRead(path), signal);
  }

  private async writeAll(path: string, flags: 'w' | 'wx' | 'a', data: string | Uint8Array, mode?: number): Promise<void> {
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
    const handle = await this.call<Buffer>('open', path, (done) => this.sftp.open(path, flags, mode !== undefined ? { mode } : {}, done));
    try {
      const start = flags.startsWith('a') ? (await this.call<Stats>('fstat', path, (done) => this.sftp.fstat(handle, done))).size : 0;
      const writes: Promise<void>[] = [];
      for (let at = 0; at < bytes.length; at += WRITE_CHUNK) {
        const length = Math.min(WRITE_CHUNK, bytes.length - at);
        writes.push(this.call<void>('write', path, (done) => this.sftp.write(handle, bytes, at, length, start + at, done)));
      }
      await Promise.all(writes);
      await this.call<void>('fsync', path, (done) => this.sftp.ext_openssh_fsync(handle, done)).catch(() => {});
    } finally {
      await this.call<void>('close', path, (done) => this.sftp.close(handle, done)).catch(() => {});
    }
  }

  async replaceFile(path: string, data: string | Uint8Array): Promise<void> {
    const parent = posix.dirname(path);
    const moved = () =>
      new EnvironmentError(
        'EXDEV',
        `The folder ${parent} changed while ${posix.basename(path)} was being written (it was replaced, e.g. by a symlink), so nothing was written. Check the folder and try again.`,
        path,
      );
    const unmoved = async () => {
      if ((await this.realpath(parent).catch(() => parent)) !== parent) throw moved();
    };
    const existing = await this.stat(path).catch(() => null);
    await unmoved();
    const temp = posix.join(parent, `.${posix.basename(path)}.deft-ssh-${randomBytes(5).toString('hex')}.tmp`);
    try {
      await this.writeAll(temp, 'wx', data, existing ? existing.mode & 0o7777 : 0o666);
      if (existing) await this.chmod(temp, existing.mode & 0o7777);
      await unmoved();
      await this.call<void>('rename', path, (done) => this.sftp.ext_openssh_rename(temp, path, done));
    } catch (error) {
      await this.call<void>('unlink', temp, (done) => this.sftp.unlink(temp, done)).catch(() => {});
      throw error;
    }
  }

  async writeFile(path: string, data: string | Uint8Array, options: { flag?: 'w' | 'a' | 'wx'; mode?: number } = {}): Promise<void> {
    await this.writeAll(path, options.flag ?? 'w', data, options.mode);
  }

  async mkdir(path: string, options: { recursive?: boolean; mode?: number } = {}): Promise<void> {
    const make = (dir: string) => this.call<void>('mkdir', dir, (done) => this.sftp.mkdir(dir, options.mode !== undefined ? { mode: options.mode } : {}, done));
    if (!options.recursive) return make(path);
    const missing: string[] = [];
    for (let dir = path; ; dir = posix.dirname(dir)) {
      const info = await this.stat(dir).catch((error: unknown) => (isMissing(error) ? null : Promise.reject(error)));
      if (info) {
        if (!info.isDirectory()) throw new EnvironmentError('ENOTDIR', `${dir} is not a folder.`, dir);
        break;
      }
      missing.push(dir);
      if (posix.dirname(dir) === dir) break;
    }
    for (const dir of missing.reverse())
      await make(dir).catch(async (error) => ((await this.stat(dir).catch(() => null))?.isDirectory() ? undefined : Promise.reject(error)));
  }

  async readdir(path: string): Promise<DirEntry[]> {
    const list = await this.call<Array<{ filename: string; attrs: Stats }>>('readdir', path, (done) => this.sftp.readdir(path, done));
    return list.map(({ filename, attrs }) => ({
      name: filename,
      type: attrs.isFile() ? 'file' : attrs.isDirectory() ? 'directory' : attrs.isSymbolicLink() ? 'symlink' : 'other',
    }));
  }

  async rm(path: string, options: { recursive?: boolean; force?: boolean } = {}): Promise<void> {
    if (options.recursive) {
      const { code } = await runRemote(this.client, `rm -r${options.force ? 'f' : ''} -- ${shellQuote(path)}`);
      if (code !== 0) throw new EnvironmentError('EIO', `Could not remove ${path} on ${this.label}.`, path);
      return;
    }
    await this.call<void>('unlink', path, (done) => this.sftp.unlink(path, done)).catch((error: unknown) =>
      options.force && isMissing(error) ? undefined : Promise.reject(error),
    );
  }

  rename(from: string, to: string): Promise<void> {
    return this.call<void>('rename', from, (done) => this.sftp.ext_openssh_rename(from, to, done));
  }
  chmod(path: string, mode: number): Promise<void> {
    return this.call<void>('chmod', path, (done) => this.sftp.chmod(path, mode, done));
  }

  // Every stat is sent at once: SFTP answers them in one stream, so many files cost about one round trip.
  async mtimes(paths: readonly string[]): Promise<Float64Array> {
    const times = await Promise.all(
      paths.map((p) =>
        this.stat(p).then(
          (s) => s.mtimeMs,
          () => -Infinity,
        ),
      ),
    );
    return Float64Array.from(times);
  }

  /** Polls (SFTP has no change notification): a file's size and time, a folder's names. */
  watch(path: string, _options: { recursive?: boolean }, onChange: (event: WatchEvent) => void): Watcher {
    let last: string | null = null;
    const look = async () => {
      const info = await this.stat(path).catch(() => null);
      const now = !info
        ? ''
        : info.isDirectory()
          ? (await this.readdir(path).catch(() => []))
              .map((e) => e.name)
              .sort()
              .join('\n')
          : `${info.size}:${info.mtimeMs}`;
      if (last !== null && now !== last) onChange({ kind: !info ? 'unlink' : last === '' ? 'add' : 'change', path });
      last = now;
    };
    void look();
    const timer = setInterval(() => void look(), 2_000);
    timer.unref?.();
    return { close: async () => clearInterval(timer) };
  }

  exec(request: ExecRequest): ExecProcess {
    return execRemote(this.client, request, () => this.lostReason);
  }

  async search(args: readonly string[], options: { cwd: string; signal?: AbortSignal }): Promise<ExecProcess> {
    if (!this.ripgrep) {
      throw new EnvironmentError(
        'ENOENT',
        `ripgrep (rg) is not installed on ${this.label}, so Grep and Glob cannot run there. Install it on that machine (e.g. \`apt-get install ripgrep\`, \`dnf install ripgrep\` or \`brew install ripgrep\`); meanwhile use Read on known paths or Bash with grep/find.`,
      );
    }
    return this.exec({ file: this.ripgrep, args, cwd: options.cwd, ...(options.signal ? { signal: options.signal } : {}) });
  }

  async close(): Promise<void> {
    this.lostReason ??= `The SSH connection to ${this.label} was closed.`;
    this.client.end();
  }
}
