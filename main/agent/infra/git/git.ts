// node:child_process itself is loaded with the first process started (a text-only turn starts none: issue 36).
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { devNull } from 'node:os';
import { delimiter, isAbsolute, join, resolve, sep } from 'node:path';
import { isExecutable } from '../platform/executable';

/**
 * The one way Deft runs git itself (prompt facts, checkpoints, the project root): whatever a repository's
 * config, attributes or hooks say, nothing but git runs. Every spawn of git in shipped code goes through
 * here (a test fails on any other).
 *
 * - No system or global config, no system attributes: `GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`,
 *   `GIT_ATTR_NOSYSTEM`, `core.attributesFile=/dev/null`.
 * - Settings that run programs are overridden on the command line, which beats every config file:
 *   `core.fsmonitor`, `core.hooksPath`, `diff.external`, credential helpers, `core.sshCommand`, the pager;
 *   no transport may be used (`protocol.allow=never`); a bare repository is used only when named
 *   (`safe.bareRepository=explicit`).
 * - Filter drivers (clean/smudge/process, which `git status` runs on files it re-hashes) are listed from
 *   the repository's config and each is emptied on the command line (see `filterOverrides`).
 * - The environment is built from nothing: an absolute-only PATH, HOME, the C locale and git's own
 *   hardening variables; none of the caller's GIT_* (a terminal inside a repository may have set
 *   GIT_DIR), no LD_PRELOAD or other loader variables.
 * - `git` itself is found on PATH's absolute entries only (a relative entry such as `.` or
 *   `node_modules/.bin` would let the folder git runs in choose the program), or given by DEFT_GIT.
 */

export class GitError extends Error {
  override name = 'GitError';
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
  }
}

/** Settings passed on every command line. */
export const HARDENED_CONFIG: readonly string[] = [
  'core.fsmonitor=false',
  'core.hooksPath=' + devNull,
  'core.attributesFile=' + devNull,
  'core.sshCommand=false',
  'core.askPass=',
  'core.pager=cat',
  'credential.helper=',
  'diff.external=',
  'protocol.allow=never',
  'safe.bareRepository=explicit',
  'submodule.recurse=false',
  'status.submoduleSummary=false',
  'log.showSignature=false',
  'gc.auto=0',
  'maintenance.auto=false',
];

/** Sub-commands that can run a diff driver: they get `--no-ext-diff --no-textconv`. */
const DIFF_COMMANDS = new Set(['diff', 'log', 'show', 'whatchanged']);

/** Where a git call runs and what it adds to the hardening. */
export interface GitCall {
  /** The working folder. */
  cwd: string;
  args: readonly string[];
  /** More `-c` settings (after the hardened ones, so they may not undo them: see `hardenedArgv`). */
  config?: readonly string[];
  /** Variables for this call: GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE, authorship. Only GIT_* names are taken. */
  gitEnv?: Readonly<Record<string, string>>;
  /** Written to git's stdin (then closed). */
  input?: string | Buffer;
  /** Exit codes that are not failures (default: only 0). */
  okCodes?: readonly number[];
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface GitResult {
  stdout: Buffer;
  stderr: string;
  exitCode: number;
}

/** Settings a caller may never pass: they would undo the hardening. A filter setting may only empty a driver. */
const RESERVED =
  /^(core\.(fsmonitor|hookspath|attributesfile|sshcommand|askpass|pager)|credential\.|diff\.external|protocol\.|safe\.bare|(?!filter\.[^=]+\.(clean|smudge|process)=$|filter\.[^=]+\.required=false$)filter\.)/i;

/** The argv after `git`: the hardened settings, the caller's, then the sub-command (with diff drivers off where they could run). */
export function hardenedArgv(args: readonly string[], config: readonly string[] = [], hardened: readonly string[] = HARDENED_CONFIG): string[] {
  for (const setting of config) if (RESERVED.test(setting)) throw new Error(`git setting "${setting}" would undo the hardening of Deft's git.`);
  const [command, ...rest] = args;
  const diffOff = command && DIFF_COMMANDS.has(command) ? ['--no-ext-diff', '--no-textconv'] : [];
  return [...[...hardened, ...config].flatMap((c) => ['-c', c]), ...(command ? [command, ...diffOff, ...rest] : [])];
}

/** PATH with its relative entries (`.`, `node_modules/.bin`) removed, and those under `untrusted` when given. */
export function absolutePath(path: string | undefined, untrusted?: string): string {
  const inside = (dir: string) => untrusted !== undefined && (dir === untrusted || dir.startsWith(untrusted.endsWith(sep) ? untrusted : untrusted + sep));
  return (path ?? '')
    .split(delimiter)
    .filter((dir) => dir && isAbsolute(dir) && !inside(resolve(dir)))
    .join(delimiter);
}

/** HARDENED_CONFIG as a POSIX machine spells it (its null device is /dev/null, whatever this machine's is): for git run over SSH. */
export function posixHardenedConfig(): string[] {
  return HARDENED_CONFIG.map((setting) => setting.replace(/=(?:\\\\\.\\nul|NUL|\/dev\/null)$/i, '=/dev/null'));
}

/** The variables that keep git from reading system or global config and attributes, prompting or paging (`nullDevice`: that machine's). */
export function hardenedGitVars(nullDevice: string): Record<string, string> {
  return {
    LC_ALL: 'C',
    LANG: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: nullDevice,
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
  };
}

/** The environment every git call gets, built from nothing. */
export function hardenedEnv(
  gitEnv: Readonly<Record<string, string>> = {},
  base: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  const env: Record<string, string> = { PATH: absolutePath(base.PATH), ...hardenedGitVars(devNull) };
  // What Windows programs need to start at all, and the home folder (git expands `~` in paths with it).
  for (const name of ['HOME', 'USERPROFILE', 'SYSTEMROOT', 'SystemRoot', 'WINDIR', 'TMPDIR', 'TEMP', 'TMP']) {
    const value = base[name];
    if (value) env[name] = value;
  }
  for (const [name, value] of Object.entries(gitEnv)) if (name.startsWith('GIT_')) env[name] = value;
  return env;
}

let resolved: { path: string | undefined; binary: string | null } | undefined;

/** `DEFT_GIT`, or `git` on PATH's absolute entries; null when there is none. */
export function gitBinary(): string | null {
  const override = process.env.DEFT_GIT?.trim();
  if (override) return override;
  if (resolved && resolved.path === process.env.PATH) return resolved.binary;
  const names = process.platform === 'win32' ? ['git.exe', 'git.cmd'] : ['git'];
  const dirs = absolutePath(process.env.PATH).split(delimiter).filter(Boolean);
  const binary = dirs.flatMap((dir) => names.map((name) => join(dir, name))).find(isExecutable) ?? null;
  resolved = { path: process.env.PATH, binary };
  return binary;
}

/** Run git to the end. Fails with a GitError carrying stderr (also when git cannot be found or started). */
export function runGit(call: GitCall): Promise<GitResult> {
  const binary = gitBinary();
  if (!binary) return Promise.reject(new GitError('git was not found on PATH (set DEFT_GIT to its path).', null, ''));
  return runArgv(binary, hardenedArgv(call.args, call.config), call);
}

/**
 * `git clone` of a plugin marketplace or plugin (the one call that may use a transport): https and local
 * (`file://`) only — ssh stays off (`core.sshCommand=false`), no credential helper, no submodules, no hooks,
 * no checkout filters (no global or system config); one commit deep.
 */
export function cloneRepository(call: { cwd: string; url: string; dest: string; ref?: string; signal?: AbortSignal; timeoutMs?: number }): Promise<GitResult> {
  const binary = gitBinary();
  if (!binary) return Promise.reject(new GitError('git was not found on PATH (set DEFT_GIT to its path).', null, ''));
  if (call.url.startsWith('-') || (call.ref ?? '').startsWith('-')) return Promise.reject(new GitError(`"${call.url}" is not a repository address`, null, ''));
  const args = ['clone', '--quiet', '--no-recurse-submodules', '--depth=1', ...(call.ref ? ['--branch', call.ref] : []), '--', call.url, call.dest];
  const argv = [...hardenedArgv([]), '-c', 'protocol.https.allow=always', '-c', 'protocol.file.allow=always', ...args];
  return runArgv(binary, argv, { ...call, args });
}

function runArgv(binary: string, argv: string[], call: GitCall): Promise<GitResult> {
  return new Promise((resolvePromise, reject) => {
    const child = process.getBuiltinModule('node:child_process').spawn(binary, argv, {
      cwd: call.cwd,
      env: hardenedEnv(call.gitEnv),
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(call.signal ? { signal: call.signal } : {}),
      ...(call.timeoutMs ? { timeout: call.timeoutMs } : {}),
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) => reject(new GitError(`git could not be started: ${error.message}`, null, '')));
    // A git that exits early (an error) closes its stdin; the write error is reported through the exit code.
    child.stdin.on('error', () => {});
    child.on('close', (code) => {
      const stderr = Buffer.concat(err).toString('utf8');
      const exitCode = code ?? -1;
      if ((call.okCodes ?? [0]).includes(exitCode)) resolvePromise({ stdout: Buffer.concat(out), stderr, exitCode });
      else
        reject(
          new GitError(
            `git ${call.args[0] ?? ''} failed (exit ${exitCode}): ${stderr.trim().split('\n').slice(-3).join(' ') || 'no message'}`,
            exitCode,
            stderr,
          ),
        );
    });
    child.stdin.end(call.input ?? '');
  });
}

/** Start a long-running git with the same hardening (e.g. `cat-file --batch`). Throws when git cannot be found. */
export function spawnGit(call: Omit<GitCall, 'input' | 'okCodes' | 'timeoutMs'>): ChildProcessWithoutNullStreams {
  const binary = gitBinary();
  if (!binary) throw new GitError('git was not found on PATH (set DEFT_GIT to its path).', null, '');
  return process.getBuiltinModule('node:child_process').spawn(binary, hardenedArgv(call.args, call.config), {
    cwd: call.cwd,
    env: hardenedEnv(call.gitEnv),
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(call.signal ? { signal: call.signal } : {}),
  });
}

/**
 * Settings that empty every filter driver the repository's config defines (clean, smudge, process), so
 * no `.gitattributes` line can make git run one. Read with the same hardening; a repository that cannot
 * be read yields none (the call that follows fails the same way).
 */
export async function filterOverrides(cwd: string, gitEnv?: Readonly<Record<string, string>>): Promise<string[]> {
  const listed = await runGit({ cwd, args: ['config', '-z', '--get-regexp', '^filter\\.'], okCodes: [0, 1], ...(gitEnv ? { gitEnv } : {}) }).catch(() => null);
  if (!listed) return [];
  const drivers = new Set<string>();
  for (const record of listed.stdout.toString('utf8').split('\0')) {
    const key = record.split('\n')[0] ?? '';
    const match = /^filter\.(.+)\.[^.]+$/i.exec(key);
    if (match) drivers.add(match[1]!);
  }
  return [...drivers].flatMap((driver) => [
    `filter.${driver}.clean=`,
    `filter.${driver}.smudge=`,
    `filter.${driver}.process=`,
    `filter.${driver}.required=false`,
  ]);
}

/** Run git in a repository Deft does not own (the workspace's): its filter drivers emptied first. */
export async function runGitInRepository(call: GitCall): Promise<GitResult> {
  const filters = await filterOverrides(call.cwd, call.gitEnv);
  return runGit({ ...call, config: [...(call.config ?? []), ...filters] });
}

let version: Promise<string | null> | undefined;

/** git's version ("2.39.5"), or null when git cannot be run. Asked once per process. */
export function gitVersion(): Promise<string | null> {
  version ??= runGit({ cwd: process.cwd(), args: ['--version'] }).then(
    (r) => /(\d+\.\d+(?:\.\d+)?)/.exec(r.stdout.toString())?.[1] ?? null,
    () => null,
  );
  return version;
}
