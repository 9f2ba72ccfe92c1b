import { createHash } from 'node:crypto';
import { lstat, readFile } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { translateIgnoreFile } from './ignore-rules';

/** Where a workspace's checkpoints live, and the repository (if any) whose ignore rules apply to it. */
export interface StorePlaces {
  /** The workspace (absolute, real): the store's work tree, so checkpoint paths are workspace paths. */
  workspace: string;
  /** The store's own git directory, under Deft's home. */
  gitDir: string;
  /** The root of the repository the workspace is in (itself or a folder above), or null. */
  repoRoot: string | null;
  /** That repository's git folder when it is a plain `.git` folder (its info/exclude is read, never written). */
  repoGitDir: string | null;
}

/** `<home>/checkpoints/<name>-<hash>.git`, one store per workspace. */
export function storeDir(home: string, workspace: string): string {
  const hash = createHash('sha256').update(workspace).digest('hex').slice(0, 12);
  const name =
    basename(workspace)
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .slice(0, 40) || 'root';
  return join(home, 'checkpoints', `${name}-${hash}.git`);
}

export async function resolvePlaces(home: string, workspace: string): Promise<StorePlaces> {
  for (let dir = workspace; ; dir = dirname(dir)) {
    const stats = await lstat(join(dir, '.git')).catch(() => null);
    if (stats?.isDirectory() || stats?.isFile())
      return { workspace, gitDir: storeDir(home, workspace), repoRoot: dir, repoGitDir: stats.isDirectory() ? join(dir, '.git') : null };
    if (dirname(dir) === dir) return { workspace, gitDir: storeDir(home, workspace), repoRoot: null, repoGitDir: null };
  }
}

/**
 * Ignore rules that apply to the workspace from outside it, rewritten for the workspace as the root: the
 * `.gitignore` files of the folders between the repository's root and the workspace, and the repository's
 * `info/exclude`. (Git reads the workspace's own `.gitignore` files itself.)
 */
export async function inheritedIgnoreRules(places: StorePlaces): Promise<string[]> {
  const { repoRoot, workspace } = places;
  if (!repoRoot) return [];
  const lines: string[] = [];
  const toWorkspace = (from: string) => relative(from, workspace).split(sep).join('/');
  const add = (label: string, text: string, from: string) => {
    const rules = translateIgnoreFile(text, toWorkspace(from));
    if (rules.length) lines.push(`# ${label}`, ...rules);
  };
  if (places.repoGitDir)
    add(`From ${join(places.repoGitDir, 'info', 'exclude')}`, await readFile(join(places.repoGitDir, 'info', 'exclude'), 'utf8').catch(() => ''), repoRoot);
  for (let dir = repoRoot; dir !== workspace && workspace.startsWith(dir); ) {
    add(`From ${join(dir, '.gitignore')}`, await readFile(join(dir, '.gitignore'), 'utf8').catch(() => ''), dir);
    const next = toWorkspace(dir).split('/')[0];
    if (!next) break;
    dir = join(dir, next);
  }
  return lines;
}
