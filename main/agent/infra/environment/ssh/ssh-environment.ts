import { posix } from 'node:path';
import type { Duplex } from 'node:stream';
import type { Client, SFTPWrapper, Stats } from 'ssh2';
import {
  type DirEntry,
  type Environment,
  type ExecProcess,
  type ExecRequest,
  type FileInfo,
  type RandomReader,
  type ConnectionState,
  type RelayThere,
  type ResolvedRead,
  type ScriptRequest,
  type ScriptResult,
  type WatchEvent,
  type Watcher,
  EnvironmentError,
  HELPER_UNAVAILABLE,
  isMissing,
} from '#contract/environment';
import { linesOf } from '../lines';
import { type SshTarget, dial, targetLabel } from './dial';

export type { SshTarget } from './dial';
import { fallbackPlan, mappedOutput } from './grep-fallback';
import { readFolderCapped } from './read-folder';
import { randomBytes } from 'node:crypto';
import { PROBE_SCRIPT, REPLACE_SCRIPT, REPLACE_SCRIPT_MAX_BYTES, parseReadAnswer, parseStatLine, readRequest } from './read-script';
import { batchMtimes } from './remote-mtimes';
import { type LocalRipgrep, bundledRipgrep, provideRipgrep } from './remote-ripgrep';
import { sftpError, shellQuote } from './sftp-errors';
import { type SftpCall, folderMoved, openReader, readWhole, replaceWhole, writeInPlace } from './sftp-files';
import { execRemote, runRemote } from './ssh-process';
import { ScriptHelper } from './script-helper';
import { type ShellsAhead, WarmShells, warmLine } from './warm-shell';

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

/** One live connection: the client, its SFTP session, and why it ended once it has. */
interface Link {
  client: Client;
  sftp: SFTPWrapper;
  chain: Client[];
  lost: string | null;
  /** Answers received so far, and how many there were when the last request was sent (see `usage.sftpRoundTrips`). */
  answers: number;
  sentAt: number;
  /** The login shell started ahead of the next command (made at the first command). */
  warm?: WarmShells;
}

/** How long a dropped connection is retried (calls made meanwhile wait for it), and the waits between tries. */
export interface ReconnectPolicy {
  forMs: number;
  delaysMs: readonly number[];
}
/** How searches are served when the remote machine has no `rg`: the ripgrep to upload (tests give another OS/arch). */
export interface SearchOptions {
  localRipgrep?: LocalRipgrep | null;
}

/** A file read in one round trip (`readResolved`) stands for the file this long at most, if nothing was done meanwhile. */
const RESOLVED_READ_FRESH_MS = 2_000;
/** SFTP calls that change nothing on the remote: safe to ask again after a dropped connection. */
const LOOKS = new Set(['stat', 'lstat', 'realpath', 'readlink', 'readdir']);

/**
 * What a connection asks first (one exec channel): the home folder, bash, rg, and what starting a process costs
 * there — two clock readings around three starts of `sh` (with the second `date`'s own start, about four) — so
 * `oneTripScripts: auto` can tell without starting the helper shell when no script there can beat SFTP's round trips.
 */
const CONNECT_PROBE = [
  'printf "%s\\n" "$HOME"',
  'command -v bash || echo /bin/sh',
  'command -v rg || echo',
  't0=$(date +%s%N); /bin/sh -c :; /bin/sh -c :; /bin/sh -c :; echo "$t0 $(date +%s%N)"',
].join('; ');

/** The cost of one process start there (ms) from the probe's clock readings: null where `date` has no `%N` (not GNU). */
export function processStartMs(line: string): number | null {
  const match = /^(\d{10,}) (\d{10,})$/.exec(line.trim());
  if (!match) return null;
  const ns = Number(BigInt(match[2]!) - BigInt(match[1]!));
  return ns > 0 ? ns / 4 / 1e6 : null;
}

/**
 * The least a one-round-trip script on the helper starts there: the read script's `readlink`, `realpath`, `stat`
 * and `head`, and the helper's frame around it (a subshell, two `wc -c`, `cat`, `rm`) — nine, counted as eight.
 */
const SCRIPT_PROCESSES = 8;

const RECONNECT: ReconnectPolicy = { forMs: 60_000, delaysMs: [250, 500, 1_000, 2_000, 4_000, 8_000] };

async function openLink(target: SshTarget, label: string): Promise<Link> {
  const { client, chain } = await dial(target);
  try {
    const sftp = await new Promise<SFTPWrapper>((resolve, reject) =>
      client.sftp((error, s) => (error ? reject(new EnvironmentError('EIO', `SFTP is not available on ${label}: ${error.message}`)) : resolve(s))),
    );
    return { client, sftp, chain, lost: null, answers: 0, sentAt: -1 };
  } catch (error) {
    for (const c of [...chain].reverse()) c.end();
    throw error;
  }
}

/**
 * A folder on another machine, over one SSH connection: SFTP for files, exec channels for processes. A dropped
 * connection is reopened with backoff: what was in flight fails with "connection lost", calls made meanwhile wait
 * for the new connection (up to the policy's bound).
 */
export class SshEnvironment implements Environment {
  readonly kind = 'ssh' as const;
  readonly path = posix;
  private state: ConnectionState = 'connected';
  private reconnecting: Promise<Link> | null = null;
  private closed = false;
  private readonly listeners = new Set<(state: ConnectionState, detail: string | null) => void>();
  /**
   * Exec channels opened (every remote process but the helper's scripts), scripts the helper shell ran, SFTP
   * requests made, and SFTP round trips: requests sent while no answer arrived since the previous request are
   * one round trip (they travel together), so pipelined requests count once and a request sent in reply to an
   * answer counts again; and commands that ran on a login shell started ahead (warm-shell.ts: each is also counted
   * as an exec channel, when it was started); `shellsAhead`, the login shells started ahead, used or not (each also
   * an exec channel). Tests and benches count with these.
   */
  readonly usage = { execChannels: 0, helperScripts: 0, sftpCalls: 0, sftpRoundTrips: 0, warmShells: 0, shellsAhead: 0, resolvedReads: 0, scriptedReplaces: 0 };
  /** The same, summed over every connection this process made (a bench counts a whole `deft run` with it). */
  static readonly processUsage = {
    execChannels: 0,
    helperScripts: 0,
    sftpCalls: 0,
    sftpRoundTrips: 0,
    warmShells: 0,
    shellsAhead: 0,
    resolvedReads: 0,
    scriptedReplaces: 0,
  };
  /**
   * Bumped by everything done through this environment that may change files there (writes, commands, scripts,
   * a new connection): a file read in one round trip stands for the file only while it is unchanged.
   */
  private changes = 0;
  /** Whether the machine can serve `readResolved` (GNU coreutils, /proc): settled by a probe on the helper shell. */
  private resolvedReads: 'unknown' | 'probing' | 'yes' | 'no' = 'unknown';
  private helper: { link: Link; instance: ScriptHelper } | null = null;
  /** Helpers in a row that died before they answered: after three, scripts run as processes of their own on this connection. */
  private helperFailures = 0;

  private constructor(
    private link: Link,
    private readonly target: SshTarget,
    readonly label: string,
    readonly home: string,
    private readonly shellPath: string,
    private readonly ripgrep: string | null,
    private workingDir: string,
    private readonly policy: ReconnectPolicy,
    private readonly searchOptions: SearchOptions,
  ) {
    this.watchLink(link);
  }

  /** Connect, check the host key, and learn the home folder, shell and ripgrep there. */
  static async connect(target: SshTarget, workingDir?: string, policy: ReconnectPolicy = RECONNECT, search: SearchOptions = {}): Promise<SshEnvironment> {
    const label = targetLabel(target);
    let accepted: string | null = null;
    // A key the user accepted for this connection is accepted again on reconnect (and only that key).
    const ask = target.acceptUnknownHost;
    const first: SshTarget = ask
      ? { ...target, acceptUnknownHost: async (h, print, line) => ((await ask(h, print, line)) ? ((accepted = print), true) : false) }
      : target;
    const link = await openLink(first, label);
    // Reconnects are not the first attempt's to stop.
    const { signal, ...rest } = target;
    const again: SshTarget = { ...rest, acceptUnknownHost: async (_h, print) => accepted !== null && print === accepted };
    const probe = await runRemote(link.client, CONNECT_PROBE);
    if (signal?.aborted) {
      for (const c of [...link.chain].reverse()) c.end();
      throw new EnvironmentError('ECANCELED', `Connecting to ${label} was stopped.`);
    }
    const [home = '/', shell = '/bin/sh', rg = '', starts = ''] = probe.stdout.split('\n');
    const environment = new SshEnvironment(link, again, label, home, shell.trim() || '/bin/sh', rg.trim() || null, workingDir ?? home, policy, search);
    environment.processStartMs = processStartMs(starts);
    return environment;
  }

  /** connected, reconnecting (after a drop), or lost (gave up, or closed). */
  connectionState(): ConnectionState {
    return this.state;
  }

  /** Called on every change of the connection's state, with the reason when it dropped. Returns the unsubscriber. */
  onConnectionState(listener: (state: ConnectionState, detail: string | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Drop the connection as a network failure would (tests; a user's "reconnect now"). */
  dropConnection(): void {
    this.link.client.destroy();
  }

  private setState(state: ConnectionState, detail: string | null): void {
    if (this.state === state) return;
    this.state = state;
    for (const listener of this.listeners) {
      try {
        listener(state, detail);
      } catch {
        // a listener's failure is its own
      }
    }
  }

  private watchLink(link: Link): void {
    const exec = link.client.exec.bind(link.client) as unknown as (...args: unknown[]) => Client;
    link.client.exec = (...args: unknown[]) => {
      this.usage.execChannels++;
      SshEnvironment.processUsage.execChannels++;
      return exec(...args);
    };
    const dropped = (reason: string) => {
      if (link.lost) return;
      link.lost = reason;
      for (const c of [...link.chain].reverse()) c.end();
      if (this.closed || link !== this.link) return;
      this.setState('reconnecting', reason);
      void this.reconnect().catch(() => {});
    };
    link.client.on('close', () => dropped(`The SSH connection to ${this.label} was lost.`));
    link.client.on('error', (error) => dropped(`The SSH connection to ${this.label} failed: ${error.message}`));
    for (const hop of link.chain.slice(0, -1)) hop.on('close', () => dropped(`The SSH connection to ${this.label} was lost (its jump host went away).`));
  }

  private reconnect(): Promise<Link> {
    this.reconnecting ??= (async () => {
      const deadline = Date.now() + this.policy.forMs;
      let lastError = '';
      for (let attempt = 0; !this.closed; attempt++) {
        try {
          const link = await openLink(this.target, this.label);
          if (this.closed) {
            link.client.end();
            break;
          }
          this.link = link;
          this.changes++;
          this.watchLink(link);
          this.reconnecting = null;
          this.setState('connected', null);
          return link;
        } catch (error) {
          lastError = (error as Error).message;
          // A refused host key or key is not a network blip: retrying cannot fix it.
          const code = (error as { code?: string }).code;
          if (code === 'EHOSTKEY' || code === 'EACCES') break;
        }
        const delays = this.policy.delaysMs;
        const wait = delays[Math.min(attempt, delays.length - 1)] ?? 1_000;
        if (Date.now() + wait > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
      const reason = this.closed
        ? `The SSH connection to ${this.label} was closed.`
        : `The SSH connection to ${this.label} was lost and could not be reopened${lastError ? ` (${lastError})` : ''}.`;
      this.link.lost ??= reason;
      this.lostForGood = reason;
      this.setState('lost', reason);
      throw new EnvironmentError('ECONNRESET', reason);
    })();
    return this.reconnecting;
  }

  private lostForGood: string | null = null;

  /** The live connection: the current one, or the one being reopened (waited for), or an error once it is gone. */
  private async current(path?: string): Promise<Link> {
    if (this.lostForGood) throw new EnvironmentError('ECONNRESET', this.lostForGood, path);
    if (!this.link.lost) return this.link;
    try {
      return await this.reconnect();
    } catch (error) {
      throw new EnvironmentError('ECONNRESET', (error as Error).message, path);
    }
  }

  cwd(): string {
    return this.workingDir;
  }
  /** Make `dir` (real, on that machine) the folder relative paths are taken from: the workspace once opened. */
  enter(dir: string): this {
    this.workingDir = dir;
    return this;
  }
  shell(): string {
    return this.shellPath;
  }

  private async call<T>(op: string, path: string, run: (sftp: SFTPWrapper, done: (error: unknown, value?: T) => void) => void): Promise<T> {
    const link = await this.current(path);
    try {
      return await this.callOn(link, op, path, run);
    } catch (error) {
      // A look (stat, readdir…) caught by the drop of its connection is asked again on the reopened one: it changed
      // nothing, so the caller gets its answer rather than "may not have completed". A change is never repeated.
      if (!LOOKS.has(op) || !link.lost || this.closed) throw error;
      return this.callOn(await this.current(path), op, path, run);
    }
  }

  /** On one connection: a file handle belongs to the connection that opened it, and fails with it. */
  private callOn<T>(
    link: Link,
    op: string,
    path: string,
    run: (sftp: SFTPWrapper, done: (error: unknown, value?: T) => void) => void,
    unwaited = false,
  ): Promise<T> {
    if (link.lost) return Promise.reject(new EnvironmentError('ECONNRESET', `${link.lost} The operation (${op} ${path}) did not run.`, path));
    this.usage.sftpCalls++;
    SshEnvironment.processUsage.sftpCalls++;
    // A request nothing waits for (a close) is no round trip of the operation's.
    if (!unwaited && link.sentAt !== link.answers) {
      link.sentAt = link.answers;
      this.usage.sftpRoundTrips++;
      SshEnvironment.processUsage.sftpRoundTrips++;
    }
    return new Promise<T>((resolve, reject) =>
      run(link.sftp, (error, value) => {
        link.answers++;
        if (!error) return resolve(value as T);
        reject(
          link.lost
            ? new EnvironmentError('ECONNRESET', `${link.lost} The operation (${op} ${path}) may not have completed.`, path)
            : sftpError(error, op, path),
        );
      }),
    );
  }

  async stat(path: string): Promise<FileInfo> {
    return toInfo(await this.call<Stats>('stat', path, (sftp, done) => sftp.stat(path, done)));
  }
  async lstat(path: string): Promise<FileInfo> {
    return toInfo(await this.call<Stats>('lstat', path, (sftp, done) => sftp.lstat(path, done)));
  }
  realpath(path: string): Promise<string> {
    return this.call<string>('realpath', path, (sftp, done) => sftp.realpath(path, done));
  }
  readlink(path: string): Promise<string> {
    return this.call<string>('readlink', path, (sftp, done) => sftp.readlink(path, done));
  }

  /** The SFTP requests of one connection, for the pipelined file operations (sftp-files.ts). */
  private callsOn(link: Link): SftpCall {
    return (op, path, run, unwaited) => this.callOn(link, op, path, run, unwaited);
  }

  async openRead(path: string): Promise<RandomReader> {
    const reader = await openReader(this.callsOn(await this.current(path)), path);
    return { size: reader.size, read: (into, position, length) => reader.read(into, position, length), close: () => reader.close() };
  }

  async readBytes(path: string): Promise<Buffer> {
    return readWhole(this.callsOn(await this.current(path)), path);
  }
  /**
   * A whole small file with its real path, stat and the roots' real paths in one script on the helper shell
   * (read-script.ts): one round trip. Only where it cannot make anything wait: the helper already started, idle
   * and able (a probe, once per connection, run in the background at the first ask); otherwise null, and the
   * caller reads over SFTP. Null too for anything but a plain regular file of at most `maxBytes`.
   */
  async readResolved(path: string, roots: readonly string[], maxBytes: number): Promise<ResolvedRead | null> {
    if (
      this.oneTripScripts === 'never' ||
      (this.oneTripScripts === 'auto' && this.sftpCheaper) ||
      this.resolvedReads === 'no' ||
      this.lostForGood ||
      this.link.lost ||
      !posix.isAbsolute(path) ||
      roots.some((root) => !posix.isAbsolute(root))
    )
      return null;
    const helper = this.helper?.link === this.link && !this.helper.instance.gone ? this.helper.instance : null;
    if (!this.scriptsServe() || !helper?.started || helper.busy) {
      // In the background (it starts the helper shell, a login shell there, when none runs yet): this read goes over SFTP.
      if (this.resolvedReads === 'unknown') void this.prepareResolvedReads();
      // A new connection (after a drop) has no helper yet: started for the next read.
      else if (this.scriptsServe() && !helper) void this.helperScript({ script: PROBE_SCRIPT, args: [], cwd: '/' }).catch(() => {});
      return null;
    }
    const generation = this.changes;
    const result = await this.helperScript(readRequest(path, roots, maxBytes)).catch(() => null);
    const answer = result && parseReadAnswer(result, roots.length, maxBytes);
    if (!answer) return null;
    this.usage.resolvedReads++;
    SshEnvironment.processUsage.resolvedReads++;
    const at = Date.now();
    return {
      real: answer.real,
      roots: answer.roots,
      info: toInfo({
        size: answer.size,
        mode: answer.mode,
        mtime: answer.mtimeSeconds,
        isFile: () => true,
        isDirectory: () => false,
        isSymbolicLink: () => false,
      } as Stats),
      bytes: answer.bytes,
      current: () => this.changes === generation && Date.now() - at < RESOLVED_READ_FRESH_MS,
    };
  }

  private probing: Promise<boolean> | null = null;

  /**
   * When reads and replaces take one script on the helper shell instead of SFTP's round trips: `auto` where the
   * probe found a script cheaper than the round trips it saves (a slow link: the script's processes there cost
   * milliseconds, a loopback or LAN round trip a fraction of one), `always` wherever the machine can (tests, the
   * bench), `never`.
   */
  oneTripScripts: 'auto' | 'always' | 'never' = 'auto';
  /**
   * What the probe measured: a script of the read's size on the helper shell, and an SFTP round trip (ms).
   * `estimated`: the script's cost was not measured but reckoned from a process start's (`processStartMs`), and
   * came out above what it would save, so the helper shell was not started for it (`auto` only).
   */
  probeFigures: { scriptMs: number; roundTripMs: number; estimated?: boolean } | null = null;
  private scriptsPay = false;
  /** What starting a process costs there (ms), measured at connect; null where it could not be. */
  processStartMs: number | null = null;
  /** `auto` found, from a round trip and a process start, that no script pays on this link: SFTP it is, no helper started. */
  private sftpCheaper = false;

  private scriptsServe(): boolean {
    return this.resolvedReads === 'yes' && (this.oneTripScripts === 'always' || (this.oneTripScripts === 'auto' && this.scriptsPay));
  }

  /**
   * Whether `readResolved` can serve on this machine: a probe script on the helper shell per connection (it starts
   * the helper), which also measures a script there against an SFTP round trip (for `oneTripScripts` `auto`).
   * `auto` first reckons, from an SFTP round trip and the process start the connection measured, whether a script
   * could pay at all: where it cannot (a loopback or LAN link), the answer is false and no helper is started.
   * `readResolved` starts it in the background; a bench or a test may wait for it.
   */
  prepareResolvedReads(): Promise<boolean> {
    if (this.resolvedReads === 'yes' || this.resolvedReads === 'no') return Promise.resolve(this.resolvedReads === 'yes');
    if (this.oneTripScripts === 'auto' && this.sftpCheaper) return Promise.resolve(false);
    this.resolvedReads = 'probing';
    const probe = { script: PROBE_SCRIPT, args: [], cwd: '/' };
    this.probing ??= (async (): Promise<boolean | 'sftp'> => {
      const link = this.link;
      // `auto`, first without the helper: a script costs at least its round trip and the processes it starts there;
      // where that is already more than the three round trips it would save, it cannot pay, and no helper is started.
      if (this.oneTripScripts === 'auto' && this.processStartMs !== null) {
        const roundTripMs = await this.sftpRoundTrip(link);
        const scriptMs = roundTripMs + SCRIPT_PROCESSES * this.processStartMs;
        if (scriptMs >= 4 * roundTripMs) {
          this.probeFigures = { scriptMs, roundTripMs, estimated: true };
          this.sftpCheaper = true;
          return 'sftp';
        }
      }
      if ((await this.helperScript(probe)).code !== 0) return false;
      // Timed once the helper runs (the first included its start): the best of two, against the best of three stats.
      let scriptMs = Infinity;
      for (let i = 0; i < 2; i++) {
        const start = performance.now();
        await this.helperScript(probe);
        scriptMs = Math.min(scriptMs, performance.now() - start);
      }
      const roundTripMs = await this.sftpRoundTrip(link);
      this.probeFigures = { scriptMs, roundTripMs };
      // A Read over SFTP is four round trips, the script one (and its processes there): it pays when it saves more.
      this.scriptsPay = scriptMs < 4 * roundTripMs;
      return true;
    })().then(
      (able) => {
        // No script pays on this link (`auto`): what the machine can do is left unknown (asked if the mode changes).
        if (able === 'sftp') {
          this.resolvedReads = 'unknown';
          this.probing = null;
          return false;
        }
        this.resolvedReads = able ? 'yes' : 'no';
        return able;
      },
      () => {
        // The helper could not serve (it failed to start, the link dropped): asked again at a later read.
        this.resolvedReads = 'unknown';
        this.probing = null;
        return false;
      },
    );
    return this.probing;
  }

  /** An SFTP round trip on the link: the best of three stats (ms). */
  private async sftpRoundTrip(link: Link): Promise<number> {
    let best = Infinity;
    for (let i = 0; i < 3; i++) {
      const start = performance.now();
      await new Promise<void>((resolve) => link.sftp.stat('/', () => resolve()));
      best = Math.min(best, performance.now() - start);
    }
    return best;
  }

  async readText(path: string): Promise<string> {
    return (await this.readBytes(path)).toString('utf8');
  }
  readLines(path: string, signal?: AbortSignal): AsyncIterable<string> {
    return linesOf(() => this.openRead(path), signal);
  }

  async replaceFile(path: string, data: string | Uint8Array): Promise<FileInfo | null> {
    const done = await this.scriptedReplace(path, data, null);
    if (done !== 'unavailable' && done !== 'changed') return done;
    const after = await replaceWhole(this.callsOn(await this.current(path)), path, data);
    return after && toInfo(after);
  }

  replaceFileIfUnchanged(path: string, data: string | Uint8Array, expected: FileInfo): Promise<FileInfo | null | 'changed' | 'unavailable'> {
    return this.scriptedReplace(path, data, expected);
  }

  /** The replace as one script on the helper shell (read-script.ts), when it serves: `unavailable` otherwise. */
  private async scriptedReplace(path: string, data: string | Uint8Array, expected: FileInfo | null): Promise<FileInfo | null | 'changed' | 'unavailable'> {
    this.changes++;
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
    const link = this.link;
    const helper = this.helper?.link === link && !this.helper.instance.gone ? this.helper.instance : null;
    // One script on the helper shell where it is ready and idle (read-script.ts), else SFTP's three round trips.
    if (this.scriptsServe() && helper?.started && !helper.busy && !link.lost && bytes.length <= REPLACE_SCRIPT_MAX_BYTES && posix.isAbsolute(path)) {
      const folder = posix.dirname(path);
      const name = posix.basename(path);
      const temp = `.${name}.deft-ssh-${randomBytes(5).toString('hex')}.tmp`;
      const want = expected ? `${expected.size} ${Math.round(expected.mtimeMs / 1000)}` : '';
      const result = await this.helperScript({ script: REPLACE_SCRIPT, args: [folder, name, temp, want], cwd: '/', input: bytes }).catch(() => {
        // Cut off with the link: whether it ran there is not known (the temp is never renamed half-written).
        if (link.lost) throw new EnvironmentError('ECONNRESET', `${link.lost} The operation (replace ${path}) may not have completed.`, path);
        return null;
      });
      if (result?.code === 96) throw folderMoved(path);
      if (result?.code === 98 && expected) return 'changed';
      if (result?.code === 0) {
        this.usage.scriptedReplaces++;
        SshEnvironment.processUsage.scriptedReplaces++;
        const after = parseStatLine(result.stdout);
        return after
          ? toInfo({
              size: after.size,
              mode: after.mode,
              mtime: after.mtimeSeconds,
              isFile: () => (after.mode & 0o170000) === 0o100000,
              isDirectory: () => (after.mode & 0o170000) === 0o040000,
              isSymbolicLink: () => false,
            } as Stats)
          : null;
      }
    }
    return 'unavailable';
  }

  async writeFile(path: string, data: string | Uint8Array, options: { flag?: 'w' | 'a' | 'wx'; mode?: number } = {}): Promise<void> {
    this.changes++;
    await writeInPlace(this.callsOn(await this.current(path)), path, options.flag ?? 'w', data, options.mode);
  }

  async mkdir(path: string, options: { recursive?: boolean; mode?: number } = {}): Promise<void> {
    this.changes++;
    const make = (dir: string) =>
      this.call<void>('mkdir', dir, (sftp, done) => sftp.mkdir(dir, options.mode !== undefined ? { mode: options.mode } : {}, done));
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
    const list = await this.call<Array<{ filename: string; attrs: Stats }>>('readdir', path, (sftp, done) => sftp.readdir(path, done));
    return list.map(({ filename, attrs }) => ({
      name: filename,
      type: attrs.isFile() ? 'file' : attrs.isDirectory() ? 'directory' : attrs.isSymbolicLink() ? 'symlink' : 'other',
    }));
  }

  /** At most `max` entries of a folder (for browsing a host whose folders may be huge); `more`: some were left. */
  readdirCapped(path: string, max: number): Promise<{ entries: DirEntry[]; more: boolean }> {
    return this.call('readdir', path, (sftp, done) => readFolderCapped(sftp, path, max, done));
  }

  async rm(path: string, options: { recursive?: boolean; force?: boolean } = {}): Promise<void> {
    this.changes++;
    if (options.recursive) {
      const { code } = await runRemote((await this.current(path)).client, `rm -r${options.force ? 'f' : ''} -- ${shellQuote(path)}`);
      if (code !== 0) throw new EnvironmentError('EIO', `Could not remove ${path} on ${this.label}.`, path);
      return;
    }
    await this.call<void>('unlink', path, (sftp, done) => sftp.unlink(path, done)).catch((error: unknown) =>
      options.force && isMissing(error) ? undefined : Promise.reject(error),
    );
  }

  rename(from: string, to: string): Promise<void> {
    this.changes++;
    return this.call<void>('rename', from, (sftp, done) => sftp.ext_openssh_rename(from, to, done));
  }
  chmod(path: string, mode: number): Promise<void> {
    this.changes++;
    return this.call<void>('chmod', path, (sftp, done) => sftp.chmod(path, mode, done));
  }

  /** Whether the machine's `stat` prints a batch (settled by the first batch that tries). */
  private batchStat = true;

  // One script on the helper shell per few thousand paths (remote-mtimes.ts), no SFTP call per file; where that
  // cannot run, every stat is sent at once over SFTP (answered in one stream: about one round trip, but a call each).
  async mtimes(paths: readonly string[]): Promise<Float64Array> {
    if (!paths.length) return new Float64Array(0);
    if (this.batchStat) {
      // A helper that cannot serve, or a failed script, costs this batch its SFTP stats; a `stat` that cannot, every batch.
      const batch = await batchMtimes((request) => this.helperScript(request), '/', paths).catch(() => undefined);
      if (batch) return batch;
      if (batch === null) this.batchStat = false;
    }
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

  /**
   * When a login shell is started ahead of the next command (warm-shell.ts): `eager` (a window or web host, which
   * stays open) at the first command; `repeated` (a one-shot `deft run`) from the second command on. Either way one
   * is started when the model begins a command's call (`commandComing`).
   */
  shellsAhead: ShellsAhead = 'eager';

  private warmShellsOf(link: Link): WarmShells {
    return (link.warm ??= new WarmShells(
      link.client,
      () => this.shellsAhead,
      () => {
        this.usage.shellsAhead++;
        SshEnvironment.processUsage.shellsAhead++;
      },
    ));
  }

  /** The model began a command's call: its login shell starts now, while the call streams and is approved. */
  commandComing(): void {
    if (this.closed || this.lostForGood || this.link.lost) return;
    this.warmShellsOf(this.link).prepare();
  }

  exec(request: ExecRequest): ExecProcess {
    this.changes++;
    return execRemote(async () => {
      const link = await this.current();
      return {
        client: link.client,
        lost: () => link.lost,
        warm: () => {
          if (link.lost) return null;
          const taken = this.warmShellsOf(link).take();
          if (!taken) return null;
          const channel = taken.then((ready) => {
            if (ready) {
              this.usage.warmShells++;
              SshEnvironment.processUsage.warmShells++;
            }
            return ready;
          });
          return { channel, line: warmLine };
        },
      };
    }, request);
  }

  /** A unix socket there (stream-local forwarding, made by sshd with its bind mask: 0600) whose connections come here. */
  async listenThere(socketPath: string, onConnection: (stream: Duplex) => void): Promise<RelayThere> {
    const link = await this.current();
    await new Promise<void>((resolve, reject) =>
      link.client.openssh_forwardInStreamLocal(socketPath, (error) =>
        error ? reject(new EnvironmentError('EACCES', `${this.label} refused to forward a socket (${error.message}).`)) : resolve(),
      ),
    );
    let closed = false;
    const onUnix = (info: { socketPath: string }, accept: () => Duplex, reject: () => void) => {
      if (info.socketPath !== socketPath) return;
      if (closed || link.lost) return void reject();
      onConnection(accept());
    };
    link.client.on('unix connection', onUnix);
    return {
      get alive() {
        return !closed && !link.lost;
      },
      close: () => {
        if (closed) return;
        closed = true;
        link.client.off('unix connection', onUnix);
        if (!link.lost) link.client.openssh_unforwardInStreamLocal(socketPath, () => {});
      },
    };
  }

  /** A TCP connection sshd there makes (direct-tcpip): it leaves from that machine. */
  async connectThere(host: string, port: number): Promise<Duplex> {
    const link = await this.current();
    return new Promise<Duplex>((resolve, reject) =>
      link.client.forwardOut('127.0.0.1', 0, host, port, (error, stream) => {
        if (!error) return resolve(stream);
        // SSH's reason 1: the server forbids the connection (AllowTcpForwarding, PermitOpen), whatever the target.
        const prohibited = (error as { reason?: number }).reason === 1;
        const message = `${this.label} could not connect: ${error.message}`;
        reject(prohibited ? new EnvironmentError('EACCES', message) : new Error(message));
      }),
    );
  }

  /** A small script on the connection's helper shell (script-helper.ts), started on first use and again after it dies. */
  runScript(request: ScriptRequest): Promise<ScriptResult> {
    // A script may change files (a checkpoint's restore): what was read in one round trip before it is read again.
    this.changes++;
    return this.helperScript(request);
  }

  /** A script on the helper shell that changes nothing there (a batch stat, a read). */
  private async helperScript(request: ScriptRequest): Promise<ScriptResult> {
    const link = await this.current();
    let helper = this.helper?.link === link && !this.helper.instance.gone ? this.helper.instance : null;
    if (!helper) {
      if (this.helper && !this.helper.instance.started) this.helperFailures++;
      else if (this.helper) this.helperFailures = 0;
      if (this.helperFailures >= 3)
        throw new EnvironmentError(HELPER_UNAVAILABLE, `The helper shell on ${this.label} failed to start three times; scripts run as processes.`);
      this.helper?.instance.close();
      helper = ScriptHelper.open(link.client, this.label);
      this.helper = { link, instance: helper };
    }
    this.usage.helperScripts++;
    SshEnvironment.processUsage.helperScripts++;
    return helper.run(request);
  }

  /** How searches run here, settled at the first one: the remote's rg, an uploaded one, or grep (and why). */
  private searcher: Promise<{ path: string } | { reason: string }> | null = null;
  private notice: string | null = null;
  private readonly noticeListeners = new Set<(notice: string) => void>();

  private searchTool(): Promise<{ path: string } | { reason: string }> {
    if (this.ripgrep) return Promise.resolve({ path: this.ripgrep });
    this.searcher ??= (async () => {
      const machine = {
        home: this.home,
        run: async (command: string) => runRemote((await this.current()).client, command),
        mkdir: (path: string, options?: { mode?: number }) => this.mkdir(path, options),
        writeFile: (path: string, data: string | Uint8Array, options?: { flag?: 'w' | 'a' | 'wx'; mode?: number }) => this.writeFile(path, data, options),
        chmod: (path: string, mode: number) => this.chmod(path, mode),
        rename: (from: string, to: string) => this.rename(from, to),
        rm: (path: string, options?: { force?: boolean }) => this.rm(path, options),
        stat: (path: string) => this.stat(path),
      };
      const local = this.searchOptions.localRipgrep !== undefined ? this.searchOptions.localRipgrep : bundledRipgrep();
      const found = await provideRipgrep(machine, local).catch((error: Error) => ({ reason: error.message }));
      if ('reason' in found) {
        const notice = `ripgrep is not on ${this.label} and could not be uploaded (${found.reason}): searching with grep, which is slower and ignores .gitignore.`;
        this.notice = notice;
        for (const listener of this.noticeListeners) listener(notice);
      }
      return found;
    })();
    return this.searcher;
  }

  /** Once: why searches here run with grep (for the model's tool result). Null when they do not, or once taken. */
  takeSearchNotice(): string | null {
    const notice = this.notice;
    this.notice = null;
    return notice;
  }

  /** Called once if searches here fall back to grep, with the one-line notice (the CLI prints it on stderr). */
  onSearchNotice(listener: (notice: string) => void): () => void {
    this.noticeListeners.add(listener);
    return () => this.noticeListeners.delete(listener);
  }

  async search(args: readonly string[], options: { cwd: string; signal?: AbortSignal }): Promise<ExecProcess> {
    const signal = options.signal ? { signal: options.signal } : {};
    const tool = await this.searchTool();
    if ('path' in tool) return this.exec({ file: tool.path, args, cwd: options.cwd, ...signal });
    const plan = fallbackPlan(args);
    return mappedOutput(this.exec({ file: '/bin/sh', args: ['-c', plan.script], cwd: options.cwd, ...signal }), plan.mapLine);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.link.lost ??= `The SSH connection to ${this.label} was closed.`;
    this.lostForGood = this.link.lost;
    this.helper?.instance.close();
    this.link.warm?.close();
    for (const c of [...this.link.chain].reverse()) c.end();
    this.setState('lost', null);
  }
}
