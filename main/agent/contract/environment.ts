import type { Duplex, Readable, Writable } from 'node:stream';

/**
 * The machine a workspace lives on, as every tool sees it (the reference's *kaos*): paths, files, processes and
 * search. A tool never touches `node:fs` or spawns a process itself; it asks the session's Environment, so a local
 * folder and one on another machine (SSH) behave alike. Backends live in `infra/environment/`.
 *
 * Errors carry a Node-style `code` (ENOENT, ENOTDIR, EACCES, EEXIST, ELOOP, EISDIR…) on every backend, so callers
 * tell "missing" from "refused" the same way everywhere. Paths are absolute in the environment's own path class.
 */
export interface Environment {
  /** `local`, or `ssh` for a folder on another machine. */
  readonly kind: 'local' | 'ssh';
  /** Where it is, for people: `local`, or `user@host` (with `:port` when not 22). */
  readonly label: string;
  /** How paths are spelt there (posix on every backend so far). */
  readonly path: PathClass;
  /** The user's home folder there. */
  readonly home: string;
  /** The folder relative paths are taken from (the workspace, once one is opened). */
  cwd(): string;
  /** The shell commands run in there: bash when there is one, else sh. */
  shell(): string;

  stat(path: string): Promise<FileInfo>;
  lstat(path: string): Promise<FileInfo>;
  realpath(path: string): Promise<string>;
  readlink(path: string): Promise<string>;
  /** Open for positional reads (streamed reads of any size: the Read tool's line windows). */
  openRead(path: string): Promise<RandomReader>;
  /** A whole file's bytes (callers check the size first). */
  readBytes(path: string): Promise<Buffer>;
  /** A whole file as UTF-8 text. */
  readText(path: string): Promise<string>;
  /** The file's lines as they stream in (without line feeds). */
  readLines(path: string, signal?: AbortSignal): AsyncIterable<string>;
  /**
   * Replace a file's content atomically (a temp file beside it, flushed, then renamed over it): a reader sees the
   * old content or the new, never a mix, and an existing file keeps its mode. `path` must be real (links resolved);
   * a folder on the way swapped for a link while writing makes it refuse rather than write elsewhere. Resolves to
   * the file's stat just after the rename (null when it is gone by then), which a remote backend asks for with the
   * rename rather than a round trip later.
   */
  replaceFile(path: string, data: string | Uint8Array): Promise<FileInfo | null>;
  /**
   * A whole regular file of at most `maxBytes` with what the path guard decides on — its real path, its stat, and
   * the real paths of `roots` — in one round trip (a remote backend: one script that opens the file once and
   * answers the open file's real path, stat and bytes). Resolves to null whenever it cannot give exactly that (no
   * such way there, the helper busy, a missing or special file, a larger one, a failure): the caller then asks the
   * usual way, which also says what is wrong. Absent locally. The caller must not use the bytes before it has
   * judged the path on `real`, `roots` and `info`.
   */
  readResolved?(path: string, roots: readonly string[], maxBytes: number): Promise<ResolvedRead | null>;
  /**
   * `replaceFile`, but only if the file still has `expected`'s size and modification time, checked there in the same
   * round trip (a remote backend's script): `changed` (nothing written) when it has not, or is gone; `unavailable`
   * when it cannot now (the caller stats, compares and replaces as before). Absent locally.
   */
  replaceFileIfUnchanged?(path: string, data: string | Uint8Array, expected: FileInfo): Promise<FileInfo | null | 'changed' | 'unavailable'>;
  /**
   * A command is about to be started (the model began a call of a tool that runs one): a backend may get ready for
   * it while the call's arguments stream and it is approved (SSH: a login shell started ahead, warm-shell.ts).
   * Absent locally.
   */
  commandComing?(): void;
  /** Write in place: `w` truncates, `a` appends, `wx` creates and fails when it exists. */
  writeFile(path: string, data: string | Uint8Array, options?: { flag?: 'w' | 'a' | 'wx'; mode?: number }): Promise<void>;
  mkdir(path: string, options?: { recursive?: boolean; mode?: number }): Promise<void>;
  readdir(path: string): Promise<DirEntry[]>;
  rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  chmod(path: string, mode: number): Promise<void>;
  /**
   * Modification times of many files at once (ms; -Infinity for one that is gone), in order: one batch, never a
   * round trip per file on a remote backend.
   */
  mtimes(paths: readonly string[]): Promise<Float64Array>;
  /** Changes under a folder (or to a file); `close` stops watching. Remote backends poll. */
  watch(path: string, options: { recursive?: boolean }, onChange: (event: WatchEvent) => void): Watcher;
  /**
   * A native recursive watch of a folder that can say when every change made before a moment has been reported
   * (`TreeWatch.sync`): checkpoints learn which files a command may have changed without scanning the folder.
   * Resolves once the watch is in place (every change from then on is reported). Absent where there is no such
   * watcher (a remote folder, a platform whose watcher cannot fence); rejects when it cannot start here (the native
   * module did not load, the system's watch limit).
   */
  watchTree?(root: string, options: TreeWatchOptions, onChanges: (changes: TreeChanges) => void): Promise<TreeWatch>;

  /** Start a process there. It runs in a process group of its own; `kill` ends the whole tree. */
  exec(request: ExecRequest): ExecProcess;
  /**
   * Run ripgrep there with `args` (what it prints streams out as from a process). Locally, throws an error saying what
   * to install when there is no ripgrep; a remote machine without one gets the bundled ripgrep uploaded, or a grep
   * stand-in printing what ripgrep would (throwing for what it cannot do).
   */
  search(args: readonly string[], options: { cwd: string; signal?: AbortSignal }): Promise<ExecProcess>;
  /**
   * Once per connection: a one-line notice when searches there run without ripgrep (a remote machine lacking it, with
   * grep instead), for the model's tool result; null otherwise or once taken. Absent locally.
   */
  takeSearchNotice?(): string | null;
  /**
   * Run a small non-interactive POSIX sh script there and collect its output (remote backends: on a helper shell kept
   * open per connection, so the login shell's start-up is not paid per script). Never for the user's commands. Throws
   * an EnvironmentError with code `EHELPER` when the helper cannot serve it (the caller runs the script with `exec`),
   * `ECANCELED` when `signal` aborts it. Absent locally.
   */
  runScript?(request: ScriptRequest): Promise<ScriptResult>;

  /**
   * A unix socket there, made by the connection (OpenSSH stream-local forwarding: mode 0600, the user's), whose
   * connections come here as streams. Rejects when the server refuses forwarding. Absent locally.
   */
  listenThere?(socketPath: string, onConnection: (stream: Duplex) => void): Promise<RelayThere>;
  /** A TCP connection made by the other machine (SSH direct-tcpip: its sshd connects, from its network). Absent locally. */
  connectThere?(host: string, port: number): Promise<Duplex>;

  /** Let go of connections and watchers (the local backend has none). */
  close(): Promise<void>;

  /** A remote backend's link: its state now, and a listener for changes (absent locally: always there). */
  connectionState?(): ConnectionState;
  onConnectionState?(listener: (state: ConnectionState, detail: string | null) => void): () => void;
}

/** A file read with its path's facts in one round trip (`Environment.readResolved`). */
export interface ResolvedRead {
  /** The open file's real path (links resolved). */
  real: string;
  /** The real paths of the roots asked about, in order. */
  roots: string[];
  /** The open file's stat (as `stat` of the path gives it on that backend). */
  info: FileInfo;
  bytes: Buffer;
  /**
   * Whether the bytes may still stand for the file: nothing that could change files was done through this
   * environment since (a write, a command, a script), and little time has passed.
   */
  current(): boolean;
}

/** A remote backend's connection: up, being reopened after a drop (calls wait), or gone for good. */
export type ConnectionState = 'connected' | 'reconnecting' | 'lost';

/** The path operations of one path class (a subset of node:path's `posix`/`win32`, which both satisfy it). */
export interface PathClass {
  readonly sep: string;
  join(this: void, ...parts: string[]): string;
  resolve(this: void, ...parts: string[]): string;
  normalize(this: void, path: string): string;
  dirname(this: void, path: string): string;
  basename(this: void, path: string, suffix?: string): string;
  extname(this: void, path: string): string;
  relative(this: void, from: string, to: string): string;
  isAbsolute(this: void, path: string): boolean;
}

/** What a stat tells (node's Stats satisfies it; a remote backend fills what its protocol knows, 0 otherwise). */
export interface FileInfo {
  size: number;
  /** Type and permission bits, as st_mode. */
  mode: number;
  mtimeMs: number;
  /** 0 where the backend cannot tell (SFTP). */
  ino: number;
  dev: number;
  /** 1 where the backend cannot tell (SFTP). */
  nlink: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

export interface DirEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
}

/** A file open for reading at any offset. */
export interface RandomReader {
  readonly size: number;
  /** Read up to `length` bytes at `position` into the start of `into`; resolves to the bytes read (0 at the end). */
  read(into: Buffer, position: number, length: number): Promise<number>;
  close(): Promise<void>;
}

export interface WatchEvent {
  kind: 'add' | 'change' | 'unlink';
  path: string;
}

export interface Watcher {
  close(): Promise<void>;
}

export interface TreeWatchOptions {
  /** Absolute paths whose changes are not reported, with everything under them (not even walked or watched). */
  ignore: readonly string[];
  /** A folder of the caller's, outside `root`, where `sync` writes its fence files (created if missing). */
  fenceDir: string;
  /**
   * Folders (absolute) found in the walk, or appearing later, that are neither walked nor watched: reported (as
   * folders), never looked into. The caller decides what it does not need to see (a folder its ignore rules leave out).
   */
  skipFolder?: (path: string) => boolean | Promise<boolean>;
}

/**
 * What a tree watch reports: the paths (absolute) that changed in one batch, and of those the ones that were created
 * (or moved in), or the error that ended the watch.
 */
export type TreeChanges = { paths: readonly string[]; created: readonly string[] } | { error: Error };

export interface TreeWatch {
  /**
   * Resolves once every change made before the call has been passed to `onChanges`; rejects when that cannot be
   * known (the watch ended, the fence did not arrive in time). The caller then treats any path as possibly changed.
   */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** The code of the error a script gets when the helper shell cannot serve it (the caller runs it as a process of its own). */
export const HELPER_UNAVAILABLE = 'EHELPER';

/** A script for Environment.runScript: its text, `$1…`, the folder it runs in, and what it reads on stdin. */
export interface ScriptRequest {
  script: string;
  args: readonly string[];
  cwd: string;
  input?: string | Buffer;
  signal?: AbortSignal;
}

export interface ScriptResult {
  stdout: Buffer;
  stderr: Buffer;
  code: number;
}

export interface ExecRequest {
  /** The program (looked up on PATH there) and its arguments. */
  file: string;
  args: readonly string[];
  cwd: string;
  /**
   * The complete environment (locally: not merged with this process's). Remote backends add these variables to the
   * login environment there instead, since this machine's values mean nothing on the other one.
   */
  env?: Readonly<Record<string, string>>;
  /** `pipe` to write to it; default `ignore` (reads see end of file: nothing waits for a person). */
  stdin?: 'pipe' | 'ignore';
  /** Aborting kills the tree. */
  signal?: AbortSignal;
  /** A `NAME=value` the process and its children carry, so ones that leave its group are still found and killed. */
  marker?: string;
  /**
   * The tool call this command runs for, when the user watches it run (Bash): a host with terminals of its own (an
   * editor, over ACP) may run it in one and show that terminal on the call.
   */
  toolCallId?: string;
}

/** How a process ended: `code` when it exited, `signal` when a signal ended it; `error` when it never started. */
export interface ExecExit {
  code: number | null;
  signal: string | null;
  error?: ExecStartError;
}

export interface ExecStartError {
  /** ENOENT (program or folder missing), EACCES, ECONNRESET (the link to the machine dropped)… */
  code: string;
  message: string;
}

/** A running process (the reference's KaosProcess). */
export interface ExecProcess {
  /** Its id on the machine it runs on (also its process group), once known; undefined when it never started. */
  readonly pid: number | undefined;
  /** Settles once `pid` is known or the process failed to start (at once locally; a round trip on a remote machine). */
  readonly started: Promise<void>;
  readonly stdin: Writable | null;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Settles once it has ended and its output has been read to the end. Never rejects. */
  readonly exit: Promise<ExecExit>;
  /** End the whole process tree: SIGTERM, up to `graceMs`, then SIGKILL. Resolves when nothing of it is left. */
  kill(graceMs?: number): Promise<void>;
}

/** Thrown by a backend: an errno-style `code` and a message that names the path. */
export class EnvironmentError extends Error {
  override name = 'EnvironmentError';
  constructor(
    readonly code: string,
    message: string,
    readonly path?: string,
  ) {
    super(message);
  }
}

/** The errno-style code of an error from an Environment (or undefined). */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Whether the error says the path (or a folder on it) does not exist. */
export function isMissing(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * The workspace as trust and its own settings files see it: the folder, the machine it is on, and the key it is known
 * by on this machine — the path itself for a local folder, `ssh://user@host:port/path` for a remote one. Trust
 * (`~/.deft/trust.json`) and the sessions are kept under `id`, never under the bare path, so a remote folder never
 * shares them with a local folder (or another host's folder) of the same path. Made by `workspacePlace`
 * (`infra/environment/workspace-place.ts`), the one place the key is derived.
 */
export interface WorkspacePlace {
  readonly path: string;
  readonly environment: Environment;
  readonly id: string;
}

/** A socket Environment.listenThere made there: alive while the connection that made it is. */
export interface RelayThere {
  readonly alive: boolean;
  close(): void;
}
