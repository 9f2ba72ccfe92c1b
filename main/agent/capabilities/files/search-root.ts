import type { Stats } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative } from 'node:path';
import type { GuardedPath } from '../../infra/policies/path-guard';
import { isWithin } from '../../infra/policies/path-guard';
import { isSensitivePath } from '../../infra/policies/sensitive';
import { ToolInputError, type ToolEnv } from '../../contract/tool';
import { guard, statOrNull } from './tool-support';

/** Where a Grep or Glob runs, and how its results are named for the model. */
export interface SearchRoot {
  path: GuardedPath;
  stats: Stats;
  /** A path rg printed (relative to its cwd) as the model should see it: relative inside the workspace, else absolute. */
  show(absolute: string): string;
}

export async function searchRoot(env: ToolEnv, input: string | undefined, need: 'any' | 'directory'): Promise<SearchRoot> {
  const path = await guard(env, input ?? '.', 'search');
  const stats = await statOrNull(path.real);
  if (!stats) throw new ToolInputError(`${path.display} does not exist. Give an existing folder${need === 'any' ? ' or file' : ''} as path, or leave it out to search the whole workspace.`);
  if (!stats.isDirectory() && !stats.isFile()) throw new ToolInputError(`${path.display} is not a regular file or folder (it is a device, socket or pipe), so it is not searched.`);
  if (need === 'directory' && !stats.isDirectory()) throw new ToolInputError(`${path.display} is not a directory. Give Glob a folder as path (use Read for a single file).`);
  // rg runs in the resolved folder, so its paths are relativised against the resolved workspace (which
  // differs from the configured one when the workspace is opened through a symlink).
  const workspace = await realpath(env.workspace).catch(() => env.workspace);
  return {
    path,
    stats,
    show: (absolute) => (isWithin(absolute, workspace) ? relative(workspace, absolute) || '.' : absolute),
  };
}

/** Split out what must never be returned (secret files), so it can be counted. */
export function withoutSensitive<T>(items: readonly T[], pathOf: (item: T) => string): { kept: T[]; filtered: T[] } {
  const kept: T[] = [];
  const filtered: T[] = [];
  for (const item of items) (isSensitivePath(pathOf(item)) ? filtered : kept).push(item);
  return { kept, filtered };
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
