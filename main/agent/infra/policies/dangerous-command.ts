import { resolve } from 'node:path';
import { isWithin } from './path-guard';
import { type ParsedShell, type ShellCommand, parseShell } from './shell-parse';
import { SHELLS, basename, readsProgramFromInput, unwrap } from './shell-programs';
import { hasExpansion, wordPaths } from './static-paths';
import type { PlannerFs } from '../sandbox/planner-fs';

export interface DeletePlaces {
  workspace: string;
  home: string;
  /** The machine's file system for globs (a remote workspace's: facts gathered there). */
  fs?: PlannerFs;
  /** Where the command runs (default: the workspace); null when a `cd` Deft could not follow made it unknown. */
  cwd?: string | null;
}

/** Whether a word names the folder it is in (`*`, `./*`, `.*`): deleting it empties that folder. */
function wholeFolder(word: string): string | null {
  const match = /^(.*?)\/?(\*|\.\*)$/.exec(word);
  return match ? match[1] || '.' : null;
}

/** What deleting `target` would take with it, in words, or null when it is none of the roots. */
function rootHit(target: string, word: string, places: DeletePlaces): string | null {
  const roots: Array<[string, string]> = [
    [resolve('/'), 'the root folder'],
    [resolve(places.home), 'your home folder'],
    [resolve(places.workspace), 'the workspace'],
  ];
  for (const [root, label] of roots) {
    if (target === root) return `${word} (${label})`;
    if (isWithin(root, target)) return `${word} (a folder that contains ${label})`;
  }
  return null;
}

/** The outcome of looking at one deleting command: what it would wipe out, or why Deft cannot tell. */
type DeleteCheck = { kind: 'catastrophic'; target: string } | { kind: 'unknown'; why: string } | null;

function checkTargets(words: string[], places: DeletePlaces): DeleteCheck {
  const cwd = places.cwd === undefined ? places.workspace : places.cwd;
  for (const word of words) {
    const whole = wholeFolder(word);
    const resolved = wordPaths(whole ?? word, { cwd, home: places.home, ...(places.fs ? { fs: places.fs } : {}) });
    if (!resolved.known) return { kind: 'unknown', why: resolved.why };
    for (const path of resolved.paths) {
      const hit = rootHit(path.replace(/(.)\/+$/, '$1'), word, places);
      if (hit) return { kind: 'catastrophic', target: hit };
    }
  }
  return null;
}

/** A recursive rm (possibly behind sudo/xargs/…): its targets, or that they come from stdin (xargs). */
function recursiveRm(command: ShellCommand): { targets: string[]; fromInput: boolean } | null {
  const { name, args, via } = unwrap(command);
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
  return recursive ? { targets, fromInput: via.includes('xargs') } : null;
}

/** `find ROOTS… -delete` or `find … -exec rm -r…`: the roots it deletes under. */
function deletingFind(command: ShellCommand): string[] | null {
  const { name, args } = unwrap(command);
  if (name !== 'find') return null;
  const execRm = args.some((a, i) => (a === '-exec' || a === '-execdir' || a === '-ok') && basename(args[i + 1] ?? '') === 'rm');
  if (!args.includes('-delete') && !execRm) return null;
  const roots: string[] = [];
  for (const arg of args) {
    if (arg.startsWith('-') || arg === '!' || arg === '(') break;
    roots.push(arg);
  }
  return roots.length ? roots : ['.'];
}

function checkCommand(command: ShellCommand, places: DeletePlaces): DeleteCheck {
  if (hasExpansion(command.name))
    return { kind: 'unknown', why: `the command name "${command.name}" is computed when it runs, so Deft cannot tell what it does` };
  const rm = recursiveRm(command);
  if (rm) {
    if (rm.fromInput) return { kind: 'unknown', why: 'it deletes recursively whatever its input names (xargs)' };
    return checkTargets(rm.targets, places);
  }
  const roots = deletingFind(command);
  return roots ? checkTargets(roots, places) : null;
}

/**
 * A recursive `rm` (or `find -delete`) of `/`, the home folder, the workspace root or a folder that
 * contains one of them. Returns what it would delete, for the refusal message, or null when the command
 * is not one (or cannot be told: see uncertainDeleteIn).
 */
export function catastrophicDelete(command: ShellCommand, places: DeletePlaces): string | null {
  const check = checkCommand(command, places);
  return check?.kind === 'catastrophic' ? check.target : null;
}

/**
 * The script a command hands to a shell (`bash -c '…'`, `sh -lc "…"`, `eval …`, `bash <<< '…'`, `sh <<EOF`) or
 * sets to run later (`trap '…' EXIT`), or null.
 */
function nestedScript(command: ShellCommand): string | null {
  const { name, args } = unwrap(command);
  if (name === 'eval') return args.length ? args.join(' ') : null;
  if (name === 'trap') {
    const action = args.find((a) => !a.startsWith('-'));
    return action && action !== '-' ? action : null;
  }
  if (!SHELLS.has(name)) return null;
  const flag = args.findIndex((a) => /^-[A-Za-z]*c[A-Za-z]*$/.test(a));
  if (flag >= 0) return flag + 1 < args.length ? args[flag + 1]! : null;
  return command.stdinText !== undefined && readsProgramFromInput(name, args) ? command.stdinText : null;
}

/** Every simple command of a parsed command line, with those of the scripts it hands to a shell (`bash -c '…'`, `eval …`). */
export async function withNestedScripts(shell: ParsedShell, depth = 0): Promise<ShellCommand[]> {
  // A loop's word list is checked as the arguments of a command would be (`for f in .git/config; do touch "$f"; done`).
  const out: ShellCommand[] = [...(shell.lists ?? [])];
  for (const part of shell.commands) {
    out.push(part);
    const script = depth < 3 ? nestedScript(part) : null;
    if (!script) continue;
    const nested = await withNestedScripts(await parseShell(script), depth + 1);
    // What the nested script prints goes where its shell's output goes (`bash -c 'echo x' | xargs touch`).
    out.push(...nested.map((c) => (part.output === 'fed' || (part.output === 'file' && c.output === 'shown') ? { ...c, output: part.output } : c)));
  }
  return out;
}

/** Where a `cd` leaves the commands after it: a known folder, or null when Deft cannot follow it. */
function afterCd(command: ShellCommand, cwd: string | null, places: DeletePlaces): string | null | undefined {
  if (command.name !== 'cd' && command.name !== 'pushd') return undefined;
  const target = command.args.find((a) => !a.startsWith('-'));
  if (target === undefined) return resolve(places.home);
  const resolved = wordPaths(target, { cwd, home: places.home, ...(places.fs ? { fs: places.fs } : {}) });
  return resolved.known && resolved.paths.length === 1 ? resolved.paths[0]! : null;
}

/** Each command of a line (nested scripts included) with the folder it runs in, following `cd` along the way. */
export async function commandsWithCwd(shell: ParsedShell, places: DeletePlaces): Promise<Array<{ part: ShellCommand; cwd: string | null }>> {
  let cwd: string | null = places.cwd === undefined ? places.workspace : places.cwd;
  const out: Array<{ part: ShellCommand; cwd: string | null }> = [];
  for (const part of await withNestedScripts(shell)) {
    out.push({ part, cwd });
    const next = afterCd(part, cwd, places);
    if (next !== undefined) cwd = next;
  }
  return out;
}

/** The first catastrophic delete in a parsed command line, nested scripts and `cd`s included, so wrapping or changing folder does not get one past the refusal. */
export async function catastrophicDeleteIn(shell: ParsedShell, places: DeletePlaces): Promise<{ text: string; target: string } | null> {
  for (const { part, cwd } of await commandsWithCwd(shell, places)) {
    const check = checkCommand(part, { ...places, cwd });
    if (check?.kind === 'catastrophic') return { text: part.text, target: check.target };
  }
  return null;
}

/**
 * A deleting command whose reach Deft cannot tell before it runs (`rm -rf "$(pwd)"`, `rm -rf $OLDPWD`,
 * `xargs rm -rf`, a computed command name such as `$r -rf ~`): it asks in every mode, as it may be as
 * bad as the ones that are refused.
 */
export async function uncertainDeleteIn(shell: ParsedShell, places: DeletePlaces): Promise<{ text: string; why: string } | null> {
  for (const { part, cwd } of await commandsWithCwd(shell, places)) {
    const check = checkCommand(part, { ...places, cwd });
    if (check?.kind === 'unknown') return { text: part.text, why: check.why };
  }
  return null;
}
