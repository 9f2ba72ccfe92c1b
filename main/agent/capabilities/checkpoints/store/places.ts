import { createHash } from 'node:crypto';
import { lstat, readFile } from 'node:fs/promises';
import * as nodePath from 'node:path';
import type { Environment, PathClass } from '#contract/environment';
import { translateIgnoreFile } from './ignore-rules';

/** How places are looked up: on this machine's disk (the default), or through an Environment (a remote workspace). */
export interface PlacesIo {
  path: PathClass;
  lstat(path: string): Promise<{ isDirectory(): boolean; isFile(): boolean } | null>;
  readText(path: string): Promise<string>;
}

const localIo: PlacesIo = {
  path: nodePath.sep === '/' ? nodePath.posix : nodePath.win32,
  lstat: (path) => lstat(path).catch(() => null),
  readText: (path) => readFile(path, 'utf8').catch(() => ''),
};

/** PlacesIo through an Environment (its paths, its files). */
export function environmentIo(environment: Environment): PlacesIo {
  return {
    path: environment.path,
    lstat: (path) => environment.lstat(path).catch(() => null),
    readText: (path) => environment.readText(path).catch(() => ''),
  };
}

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
export function storeDir(home: string, workspace: string, paths: PathClass = nodePath.posix.sep === nodePath.sep ? nodePath.posix : nodePath.win32): string {
  const hash = createHash('sha256').update(workspace).digest('hex').slice(0, 12);
  const name =
    paths
      .basename(workspace)
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .slice(0, 40) || 'root';
  return paths.join(home, 'checkpoints', `${name}-${hash}.git`);
}

export async function resolvePlaces(home: string, workspace: string, io: PlacesIo = localIo): Promise<StorePlaces> {
  const { dirname, join } = io.path;
  const gitDir = storeDir(home, workspace, io.path);
  for (let dir = workspace; ; dir = dirname(dir)) {
    const stats = await io.lstat(join(dir, '.git'));
    if (stats?.isDirectory() || stats?.isFile()) return { workspace, gitDir, repoRoot: dir, repoGitDir: stats.isDirectory() ? join(dir, '.git') : null };
    if (dirname(dir) === dir) return { workspace, gitDir, repoRoot: null, repoGitDir: null };
  }
}

/**
 * Ignore rules that apply to the workspace from outside it, rewritten for the workspace as the root: the
 * `.gitignore` files of the folders between the repository's root and the workspace, and the repository's
 * `info/exclude`. (Git reads the workspace's own `.gitignore` files itself.)
 */
export async function inheritedIgnoreRules(places: StorePlaces, io: PlacesIo = localIo): Promise<string[]> {
  const { repoRoot, workspace } = places;
  const { join, relative, sep } = io.path;
  if (!repoRoot) return [];
  const lines: string[] = [];
  const toWorkspace = (from: string) => relative(from, workspace).split(sep).join('/');
  const add = (label: string, text: string, from: string) => {
    const rules = translateIgnoreFile(text, toWorkspace(from));
    if (rules.length) lines.push(`# ${label}`, ...rules);
  };
  if (places.repoGitDir) add(`From ${join(places.repoGitDir, 'info', 'exclude')}`, await io.readText(join(places.repoGitDir, 'info', 'exclude')), repoRoot);
  for (let dir = repoRoot; dir !== workspace && workspace.startsWith(dir); ) {
    add(`From ${join(dir, '.gitignore')}`, await io.readText(join(dir, '.gitignore')), dir);
    const next = toWorkspace(dir).split('/')[0];
    if (!next) break;
    dir = join(dir, next);
  }
  return lines;
}
