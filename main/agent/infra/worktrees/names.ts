import { randomBytes } from 'node:crypto';

/**
 * Worktree names and branch names. A name becomes a folder under Deft's home and (by default) the branch
 * `deft/<name>`: only letters, digits, `.`, `_` and `-`, never starting with `-` or `.` (an option or a hidden
 * folder), never `..` or a `.lock` ending (git refuses those in refs).
 */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const BRANCH_PREFIX = 'deft/';

/** Why a worktree name cannot be used, or null when it can. */
export function nameProblem(name: string): string | null {
  if (!NAME.test(name)) return `"${name}" is not a worktree name: use 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit.`;
  if (name.includes('..') || name.endsWith('.lock') || name.endsWith('.')) return `"${name}" is not a worktree name: no "..", and no ending in "." or ".lock".`;
  return null;
}

/**
 * Why a branch name cannot be used, or null. Git's own `check-ref-format --branch` is asked too (by the caller);
 * this refuses what git would take but Deft will not pass on a command line: a leading `-`, `..`, `@{`, spaces.
 */
export function branchProblem(branch: string): string | null {
  if (!branch || branch.length > 200) return 'a branch name must have 1–200 characters.';
  if (branch.startsWith('-') || branch.startsWith('/') || branch.endsWith('/'))
    return `"${branch}" is not a branch name Deft uses: it must not start with "-" or "/" or end with "/".`;
  if (hasControl(branch) || /\.\.|@\{|[\s~^:?*[\\]|\/\.|^\.|\.lock(\/|$)|\/\/|\.$/.test(branch)) return `"${branch}" is not a valid branch name.`;
  if (branch === 'HEAD' || branch === '@') return `"${branch}" is not a branch name.`;
  return null;
}

/** Whether a text holds a control character (never in a name Deft puts on a command line). */
export function hasControl(text: string): boolean {
  return [...text].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
}

/** A name from a prompt or a description: its first words, lower-cased, with a short random tail so two never collide. */
export function generatedName(from = ''): string {
  const words = from
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .split('-')
    .filter(Boolean)
    .slice(0, 4)
    .join('-')
    .slice(0, 40)
    .replace(/-+$/, '');
  const tail = randomBytes(3).toString('hex');
  return words ? `${words}-${tail}` : `session-${tail}`;
}
