import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { isSensitivePath } from './sensitive';
import type { ShellCommand } from './shell-parse';
import { hasExpansion, pathLike, wordPaths } from './static-paths';

export interface Places {
  workspace: string;
  /** Deft's home (~/.deft). */
  home: string;
  /** The user's home folder, for `~`. */
  userHome: string;
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
    if (!HOME_WORK_FOLDERS.includes(rest.toLowerCase())) return "it is in Deft's home folder (settings, trust, secrets and session logs)";
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
  const deftHome = canonicalPath(places.home);
  return reasonFor(resolve(path), places, deftHome) ?? reasonFor(canonicalPath(path), places, deftHome);
}

/** Words of a command that name files: its arguments and redirection targets, `--opt=path` values included. */
function pathWords(command: ShellCommand): Array<{ word: string; redirect: boolean; literal: boolean }> {
  const args = command.name ? command.args : command.text.split(/\s+/);
  const literal = (word: string) => (command.name && command.expanding ? !command.expanding.has(word) : false);
  return [
    ...args.map((word) => ({ word: word.replace(/^[^=/]*=(?=[./~$])/, ''), redirect: false, literal: literal(word) })),
    ...command.redirects.map((word) => ({ word, redirect: true, literal: literal(word) })),
  ];
}

/**
 * A protected path a shell command names in its arguments or redirections (the shell cannot tell reads
 * from writes, so any mention asks), or a redirection target or path-like argument Deft cannot resolve
 * before the command runs (`> $HOME/x`, `"${PWD}"/.git/x`, `$(…)/x`): those ask too, since they may
 * lead anywhere. Globs are expanded on disk (`.en?` is `.env`).
 */
export function protectedPathInCommand(command: ShellCommand, places: Places & { cwd?: string | null }): { word: string; reason: string } | null {
  const cwd = places.cwd === undefined ? places.workspace : places.cwd;
  for (const { word, redirect, literal } of pathWords(command)) {
    if (!word || /^\d+$/.test(word) || (!redirect && word.startsWith('-'))) continue;
    // A plain argument (`status`, `$MESSAGE`) may not be a path at all: checked only when it is known.
    if (!redirect && !pathLike(word) && ((!literal && hasExpansion(word)) || cwd === null)) continue;
    const resolved = wordPaths(word, { cwd, home: places.userHome }, literal);
    if (!resolved.known) return { word, reason: `Deft cannot tell where it leads before the command runs: ${resolved.why}` };
    for (const path of resolved.paths) {
      const reason = protectedPathReason(path, places);
      if (reason) return { word, reason: path === resolve(cwd ?? '/', word) ? reason : `it leads to ${path}: ${reason}` };
    }
  }
  return null;
}
