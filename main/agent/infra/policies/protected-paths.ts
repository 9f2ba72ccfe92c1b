import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { isSensitivePath } from './sensitive';
import type { ShellCommand } from './shell-parse';
import { unseenProgram } from './shell-programs';
import type { Environment } from '#contract/environment';
import { type PlannerFs, canonicalIn } from '../sandbox/planner-fs';
import { hasExpansion, pathLike, wordPaths } from './static-paths';

export interface Places {
  workspace: string;
  /** Deft's home (~/.deft). */
  home: string;
  /** The user's home folder, for `~` (a remote workspace's: the home there). */
  userHome: string;
  /** A remote workspace's machine: its paths are resolved there (`fs`, facts gathered over its link), never on this disk. */
  remote?: Environment;
  /** The file system paths are resolved on (default: this machine's). */
  fs?: PlannerFs;
}

const SETTINGS_FILE = /^(settings|secrets)([.\w-]*)\.json$/i;
/** Folders of Deft's home that the agent writes in normal work (plan files, the user's own skills). */
const HOME_WORK_FOLDERS = ['plans', 'skills'];

/** The real path of `path`, or of its nearest existing ancestor with the rest appended (symlinks resolved). */
export function canonicalPath(path: string): string {
  let current = resolve(path);
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(current), ...rest.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return resolve(path);
      rest.push(basename(current));
      current = parent;
    }
  }
}

function within(root: string, path: string): boolean {
  const a = root.toLowerCase();
  const b = path.toLowerCase();
  return b === a || b.startsWith(a.endsWith(sep) ? a : a + sep);
}

/** A workspace's MCP server file: `.mcp.json`, or `mcp.json` in a `.deft` folder. */
function isMcpConfig(path: string): boolean {
  const name = basename(path).toLowerCase();
  return name === '.mcp.json' || (name === 'mcp.json' && basename(dirname(path)).toLowerCase() === '.deft');
}

function reasonFor(path: string, places: Places, deftHome: string): string | null {
  const lower = path.toLowerCase();
  if (lower.split(sep).includes('.git')) return 'it is inside a .git folder (repository internals, including hooks that run code)';
  if (within(deftHome, path)) {
    const rest = path.slice(deftHome.length + 1).split(sep)[0] ?? '';
    // A session in a Deft worktree (`<home>/worktrees/…`) works in its own checkout as in any workspace.
    const ownWorktree = rest.toLowerCase() === 'worktrees' && within(canonicalOn(places, places.workspace), path);
    if (!HOME_WORK_FOLDERS.includes(rest.toLowerCase()) && !ownWorktree) return "it is in Deft's home folder (settings, trust, secrets and session logs)";
  }
  const name = basename(path);
  if (SETTINGS_FILE.test(name) && basename(dirname(path)).toLowerCase() === '.deft')
    return "it is one of Deft's settings files, which hold the permission rules";
  if (isMcpConfig(path)) return 'it defines MCP servers: programs Deft starts for this folder';
  if (isSensitivePath(path)) return 'it holds secrets (.env files, private keys, cloud credentials)';
  return null;
}

/**
 * Why writing this path always asks the user, whatever the mode and rules: repository internals
 * (`.git/`, where hooks run code), Deft's home (settings, trust, secrets, session logs), the workspace's
 * Deft settings and MCP server files (`.mcp.json`, `.deft/mcp.json`), and files holding secrets. Compared canonically — symlinks resolved,
 * case-insensitively — so `g/x` with `g -> .git`, `.GIT/config` or a link into Deft's home count too.
 * Null when the path is not protected.
 */
export function protectedPathReason(path: string, places: Places): string | null {
  const deftHome = canonicalOn(places, places.home);
  return reasonFor(resolve(path), places, deftHome) ?? reasonFor(canonicalOn(places, path), places, deftHome);
}

/** The canonical path on the workspace's machine: this disk, or facts gathered on the remote one. */
function canonicalOn(places: Places, path: string): string {
  return places.fs ? canonicalIn(places.fs, path) : canonicalPath(path);
}

/** Words of a command that name files: its arguments and redirection targets, `--opt=path` values included. */
function pathWords(command: ShellCommand): Array<{ word: string; original: string; redirect: boolean; literal: boolean }> {
  const args = command.name ? command.args : command.text.split(/\s+/);
  const literal = (word: string) => (command.name && command.expanding ? !command.expanding.has(word) : false);
  return [
    ...args.map((word) => ({ word: word.replace(/^[^=/]*=(?=[./~$])/, ''), original: word, redirect: false, literal: literal(word) })),
    ...command.redirects.map((word) => ({ word, original: word, redirect: true, literal: literal(word) })),
  ];
}

/** Builtins that only print their arguments (or nothing): what they are given is text, not a file to write. */
const PRINTERS = new Set(['echo', 'printf', 'true', 'false', ':']);
/**
 * Commands that can change what a command name runs, run text Deft does not see as commands, or send
 * the output of the commands after them elsewhere (`exec > list.txt`).
 */
const REDEFINERS = new Set(['alias', 'enable', 'eval', 'source', '.', 'exec']);
/** Commands that run the command named in their arguments (`builtin eval …`). */
const RUNNERS = new Set(['builtin', 'command', 'time', 'env', 'nice', 'nohup', 'sudo', 'doas', 'xargs']);

function printsOnly(command: ShellCommand): boolean {
  if (!PRINTERS.has(command.name)) return false;
  if (command.name !== 'printf') return true;
  // `printf -v NAME` assigns a variable; a computed first word may be that `-v`.
  const first = command.args[0];
  return first === undefined || (!(command.expanding?.has(first) ?? true) && (first === '--' || !first.startsWith('-')));
}

/**
 * Whether the arguments of printing builtins in these commands (a whole line, nested scripts included)
 * may be taken as data: not when the line defines a function or alias, enables builtins, or runs text
 * through `eval` or `source` (any of which could make `echo` write), nor when `exec` may send later output
 * into a file, nor when a command name is computed.
 */
export function printedArgumentsAreData(parts: readonly ShellCommand[]): boolean {
  return !parts.some(
    (part) =>
      part.definesFunctions ||
      hasExpansion(part.name) ||
      REDEFINERS.has(part.name) ||
      (RUNNERS.has(part.name) && part.args.some((word) => REDEFINERS.has(word))),
  );
}

/** A word of a command that needs the user: a protected path it names, or a path Deft cannot resolve (`known: false`). */
export interface CommandPathHit {
  word: string;
  /** Why: the protected path's reason, or why its place is unknown (without the word). */
  reason: string;
  known: boolean;
  /** The word is a command whose program Deft cannot see (`sh` fed by a pipe), not a path. */
  program?: boolean;
}

/**
 * A protected path a shell command names in its arguments or redirections (the shell cannot tell reads
 * from writes, so any mention asks), or a redirection target or path-like argument Deft cannot resolve
 * before the command runs (`> $HOME/x`, `"${PWD}"/.git/x`, `$(…)/x`): those ask too, since they may
 * lead anywhere. Globs are expanded on disk (`.en?` is `.env`).
 *
 * With `dataArguments` (see printedArgumentsAreData), what a printing builtin (`echo`, `printf` without
 * `-v`, `true`, `:`) is given is text, not a path: its plain arguments are skipped when its output is
 * shown, and only checked for known protected paths when its output goes to a file. Arguments with
 * `$(…)`, `<(…)`, `$((…))` or `${x:=…}`, and the arguments of a printer whose output feeds another
 * command (`echo .git/x | xargs touch`), are checked as any command's; redirections always are.
 */
export function protectedPathInCommand(
  command: ShellCommand,
  places: Places & { cwd?: string | null },
  options: { dataArguments?: boolean } = {},
): CommandPathHit | null {
  const unseen = unseenProgram(command);
  if (unseen) return { word: command.text, reason: unseen, known: false, program: true };
  const cwd = places.cwd === undefined ? places.workspace : places.cwd;
  const printer = options.dataArguments === true && printsOnly(command) && command.output !== 'fed';
  for (const { word, original, redirect, literal } of pathWords(command)) {
    if (!word || /^\d+$/.test(word) || (!redirect && word.startsWith('-'))) continue;
    const data = printer && !redirect && command.plainWords?.has(original) === true;
    if (data && command.output === 'shown') continue;
    // A plain argument (`status`, `$MESSAGE`) may not be a path at all: checked only when it is known.
    if (!redirect && (!pathLike(word) || data) && ((!literal && hasExpansion(word)) || cwd === null)) continue;
    const resolved = wordPaths(word, { cwd, home: places.userHome, ...(places.fs ? { fs: places.fs } : {}) }, literal);
    if (!resolved.known) return { word, reason: resolved.why.replace(`"${word}" `, ''), known: false };
    for (const path of resolved.paths) {
      const reason = protectedPathReason(path, places);
      if (reason) return { word, reason: path === resolve(cwd ?? '/', word) ? reason : `it leads to ${path}: ${reason}`, known: true };
    }
  }
  return null;
}
