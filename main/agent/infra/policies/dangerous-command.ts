import { isAbsolute, resolve } from 'node:path';
import { isWithin } from './path-guard';
import { type ParsedShell, type ShellCommand, parseShell } from './shell-parse';

// Words that run the command after them: `sudo rm -rf /` is an rm.
const WRAPPERS = new Set(['sudo', 'doas', 'command', 'builtin', 'env', 'nohup', 'nice', 'time', 'exec', 'xargs', 'busybox']);

/** The command a wrapper runs, with its arguments (`sudo -u x rm -rf /` → rm). */
function unwrap(command: ShellCommand): { name: string; args: string[] } {
  let name = basename(command.name);
  let args = command.args;
  for (let depth = 0; WRAPPERS.has(name) && depth < 4; depth++) {
    const next = args.findIndex((a) => !a.startsWith('-') && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(a));
    if (next < 0) return { name, args: [] };
    name = basename(args[next]!);
    args = args.slice(next + 1);
  }
  return { name, args };
}

function basename(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/** Where a target word points, with `~`, `$HOME`, `$PWD` expanded and trailing `/`, `/.`, `/*` dropped; null when it depends on other variables. */
function targetPath(word: string, places: { workspace: string; home: string; cwd?: string }): string | null {
  const cwd = places.cwd ?? places.workspace;
  let path = word
    .replace(/^~(?=\/|$)/, places.home)
    .replace(/^\$\{?HOME\}?(?=\/|$)/, places.home)
    .replace(/^\$\{?PWD\}?(?=\/|$)/, cwd);
  if (path.includes('$') || path.includes('`')) return null;
  for (;;) {
    const trimmed = path.replace(/\/\*$/, '').replace(/\/\.$/, '').replace(/(.)\/+$/, '$1');
    if (trimmed === path) break;
    path = trimmed;
  }
  if (path === '*' || path === '.*') return cwd;
  return isAbsolute(path) ? resolve(path) : resolve(cwd, path);
}

/**
 * A recursive `rm` of `/`, the home folder, the workspace root or a folder that contains one of them.
 * Returns what it would delete, for the refusal message, or null when the command is not one.
 */
/** `cwd` is where the command runs (default: the workspace); relative targets resolve against it. */
export function catastrophicDelete(command: ShellCommand, places: { workspace: string; home: string; cwd?: string }): string | null {
  const { name, args } = unwrap(command);
  if (name !== 'rm') return null;
  let recursive = false;
  const targets: string[] = [];
  let endOfOptions = false;
  for (const arg of args) {
    if (!endOfOptions && arg === '--') endOfOptions = true;
    else if (!endOfOptions && arg.startsWith('--')) recursive ||= arg === '--recursive';
    else if (!endOfOptions && arg.startsWith('-') && arg.length > 1) recursive ||= /[rR]/.test(arg);
    else targets.push(arg);
  }
  if (!recursive) return null;
  const roots: Array<[string, string]> = [
    [resolve('/'), 'the root folder'],
    [resolve(places.home), 'your home folder'],
    [resolve(places.workspace), 'the workspace'],
  ];
  for (const target of targets) {
    const path = targetPath(target, places);
    if (path === null) continue;
    for (const [root, label] of roots) {
      if (path === root) return `${target} (${label})`;
      if (isWithin(root, path)) return `${target} (a folder that contains ${label})`;
    }
  }
  return null;
}

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh']);

/** The script a command hands to a shell (`bash -c '…'`, `sh -lc "…"`, `eval …`), or null. */
function nestedScript(command: ShellCommand): string | null {
  const { name, args } = unwrap(command);
  if (name === 'eval') return args.length ? args.join(' ') : null;
  if (!SHELLS.has(name)) return null;
  const flag = args.findIndex((a) => /^-[A-Za-z]*c[A-Za-z]*$/.test(a));
  return flag >= 0 && flag + 1 < args.length ? args[flag + 1]! : null;
}

/** Every simple command of a parsed command line, with those of the scripts it hands to a shell (`bash -c '…'`, `eval …`). */
export async function withNestedScripts(shell: ParsedShell, depth = 0): Promise<ShellCommand[]> {
  const out: ShellCommand[] = [];
  for (const part of shell.commands) {
    out.push(part);
    const script = depth < 3 ? nestedScript(part) : null;
    if (script) out.push(...(await withNestedScripts(await parseShell(script), depth + 1)));
  }
  return out;
}

/** The first catastrophic delete in a parsed command line, nested scripts included, so wrapping does not get one past the refusal. */
export async function catastrophicDeleteIn(shell: ParsedShell, places: { workspace: string; home: string; cwd?: string }): Promise<{ text: string; target: string } | null> {
  for (const part of await withNestedScripts(shell)) {
    const target = catastrophicDelete(part, places);
    if (target) return { text: part.text, target };
  }
  return null;
}
