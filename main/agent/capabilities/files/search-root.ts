import { isAbsolute, relative } from 'node:path';
import type { FileInfo } from '#contract/environment';
import type { GuardedPath } from '#infra/policies/path-guard';
import { isWithin } from '#infra/policies/path-guard';
import { SECRET_BY_CONTENT, isSensitiveFile, isSensitivePath } from '#infra/policies/sensitive';
import { ToolInputError, type ToolEnv } from '#contract/tool';
import { guard, statOrNull } from './tool-support';

/** Where a Grep or Glob runs, and how its results are named for the model. */
export interface SearchRoot {
  path: GuardedPath;
  stats: FileInfo;
  /** A path rg printed (relative to its cwd) as the model should see it: relative inside the workspace, else absolute. */
  show(absolute: string): string;
}

export async function searchRoot(env: ToolEnv, input: string | undefined, need: 'any' | 'directory'): Promise<SearchRoot> {
  const path = await guard(env, input ?? '.', 'search');
  const stats = await statOrNull(env.environment, path.real);
  if (!stats)
    throw new ToolInputError(
      `${path.display} does not exist. Give an existing folder${need === 'any' ? ' or file' : ''} as path, or leave it out to search the whole workspace.`,
    );
  if (!stats.isDirectory() && !stats.isFile())
    throw new ToolInputError(`${path.display} is not a regular file or folder (it is a device, socket or pipe), so it is not searched.`);
  if (need === 'directory' && !stats.isDirectory())
    throw new ToolInputError(`${path.display} is not a directory. Give Glob a folder as path (use Read for a single file).`);
  // rg runs in the resolved folder, so its paths are relativised against the resolved workspace (which
  // differs from the configured one when the workspace is opened through a symlink).
  const workspace = await env.environment.realpath(env.workspace).catch(() => env.workspace);
  return {
    path,
    stats,
    show: (absolute) => (isWithin(absolute, workspace) ? relative(workspace, absolute) || '.' : absolute),
  };
}

/** What a search must never return: secret files, and files a deny rule hides from reading. */
export interface Hidden {
  /** Why this path is hidden ('secret' or the deny rule), or null. */
  reason(path: string): string | null;
}

/**
 * The hiding rules for a search of `paths`: secret names (and, for files that can only be told by their
 * content — a key file, a token in .npmrc, a hard link to .env — a look at them), and the user's deny
 * rules on reading. `deep` also checks every file for hard links (content searches, which print lines).
 */
export async function hiddenFiles(env: ToolEnv, paths: readonly string[], options: { deep?: boolean } = {}): Promise<Hidden> {
  const denied = (await env.readDenials?.()) ?? (() => null);
  const byContent = new Set<string>();
  const candidates = options.deep ? paths : paths.filter((p) => SECRET_BY_CONTENT.test(p));
  await Promise.all(
    candidates.map(async (p) => (await isSensitiveFile(env.environment, p, { deftHome: env.home, workspace: env.workspace })) && byContent.add(p)),
  );
  return {
    reason: (path) => (isSensitivePath(path, env.home, env.workspace) || byContent.has(path) ? 'secret' : denied(path)),
  };
}

/** Split out what must never be returned — secrets (`filtered`) and files deny rules hide (`denied`) — so they can be counted. */
export function withoutSensitive<T>(items: readonly T[], pathOf: (item: T) => string, hidden: Hidden): { kept: T[]; filtered: T[]; denied: T[] } {
  const kept: T[] = [];
  const filtered: T[] = [];
  const denied: T[] = [];
  for (const item of items) {
    const reason = hidden.reason(pathOf(item));
    (reason === 'secret' ? filtered : reason ? denied : kept).push(item);
  }
  return { kept, filtered, denied };
}

/** "N file(s) hidden by deny rules", without naming them (the rule hides their names too). */
export function deniedNote(denied: readonly unknown[]): string {
  return denied.length ? `${denied.length} file(s) hidden by deny rules on reading were left out.` : '';
}

/** Refuse a search whose root a deny rule hides. */
export async function checkRootReadable(env: ToolEnv, root: SearchRoot): Promise<void> {
  const rule = (await env.readDenials?.())?.(root.path.real);
  if (rule)
    throw new ToolInputError(
      `${root.path.display} is hidden by the deny rule "${rule}": it is not read, searched or listed. Search elsewhere, or ask the user to change the rule.`,
    );
}

/** "Filtered N sensitive file(s): …", naming a few (as the model would write their paths). */
export function filteredNote(filtered: readonly string[]): string {
  if (!filtered.length) return '';
  const names = [...filtered].sort().slice(0, 5).join(', ');
  return `Filtered ${filtered.length} sensitive file(s) (secrets are never searched or listed): ${names}${filtered.length > 5 ? ', …' : ''}.`;
}

export function isAbsolutePattern(pattern: string): boolean {
  return isAbsolute(pattern) || pattern.startsWith('~/');
}
