import { mkdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { localEnvironment } from '#infra/environment/local/local-environment';
import { ownedByUser } from '#infra/git/repository';
import { isSensitiveFile, secretPathHint, sortSecretPaths } from '#infra/policies/sensitive';
import { type GitPlaces, runGit } from './git';
import { type GitIndex, type IndexEntry, UnusableIndex, isGitlink, readIndex } from './git-index';
import type { StorePlaces } from './places';

/**
 * A new store starts from the workspace repository's own index instead of hashing every file: the index says
 * which blob each tracked file holds and the stat data git saw then, so the store's first `git status` finds
 * only what changed since and the untracked files; the repository's objects are borrowed (objects/info/
 * alternates, read only) until the store copies what its checkpoints need into a pack of its own
 * (`CheckpointStore.ownObjects`). Taken only when a blob is exactly the file's bytes: no .gitattributes
 * anywhere in the index, no info/attributes, and no config that converts line endings, runs filters or
 * includes other config (repository, global, system).
 */

/** Config words that could make a blob differ from the file's bytes, or hide what decides it. */
const CONVERTING_CONFIG = /\b(autocrlf|eol|filter|attributesfile|include|includeif|objectformat|worktreeconfig)\b/i;

export const ALTERNATES = join('objects', 'info', 'alternates');
/** In the store's git folder while its HEAD is the seeded tree, not yet a checkpoint (CheckpointStore.provisionalHead). */
export const SEED_PENDING = 'deft-seeded-head';

export interface SeedOptions {
  maxFileBytes: number;
  /** Deft's home and the paths the store never captures (workspace paths). */
  home: string;
  excluded: readonly string[];
}

/** Whether the repository's git config (and the user's and the system's) leaves blobs as the files' bytes. */
async function configConverts(repoGitDir: string): Promise<boolean> {
  const home = process.env.HOME ?? homedir();
  const files = [
    join(repoGitDir, 'config'),
    process.env.GIT_CONFIG_GLOBAL ?? join(home, '.gitconfig'),
    join(process.env.XDG_CONFIG_HOME ?? join(home, '.config'), 'git', 'config'),
    process.env.GIT_CONFIG_SYSTEM ?? '/etc/gitconfig',
  ];
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (CONVERTING_CONFIG.test(text)) return true;
  }
  const attributes = await readFile(join(repoGitDir, 'info', 'attributes'), 'utf8').catch(() => '');
  return attributes.trim() !== '';
}

/** Paths of the index the store must not take over: nested repositories, secrets, files over the size limit, what it never captures. */
async function leftOut(places: StorePlaces, entries: readonly IndexEntry[], options: SeedOptions): Promise<string[]> {
  const out: string[] = [];
  const excluded = options.excluded.map((x) => ({ path: x, folder: x.endsWith('/') ? x : `${x}/` }));
  const isExcluded = (path: string) => {
    for (const x of excluded) if (path === x.path || path.startsWith(x.folder)) return true;
    return false;
  };
  const kept: string[] = [];
  for (const entry of entries) {
    const { path } = entry;
    if (isGitlink(entry) || entry.size > options.maxFileBytes || isExcluded(path)) out.push(path);
    else kept.push(path);
  }
  // Secrets by name and place, the folders' part decided once per folder (sortSecretPaths); key and token files by their content.
  const { secret, byContent } = sortSecretPaths(kept);
  out.push(...secret);
  for (const path of byContent) if (await isSensitiveFile(localEnvironment(), join(places.workspace, path), { workspace: places.workspace })) out.push(path);
  return out;
}

/** A seeded index: the tree of all the repository index's entries where its cache-tree knows it, and the entries left out. */
export interface Seeded {
  /** GitIndex.tree: the tree of the repository's index, before `removed` are taken out of it. */
  tree: string | null;
  /** Workspace paths of the repository's index that the store's index does not hold (leftOut). */
  removed: string[];
}

/**
 * Seed a new store's index from the workspace repository's (see above). Resolves to what was seeded; null
 * (having left nothing behind) when the workspace is not the top of a repository of the user's, or its index
 * or config does not allow it.
 */
export async function seedFromRepository(places: StorePlaces, git: GitPlaces, options: SeedOptions): Promise<Seeded | null> {
  const { repoGitDir } = places;
  if (!repoGitDir || places.repoRoot !== places.workspace || !ownedByUser(repoGitDir)) return null;
  const indexPath = join(repoGitDir, 'index');
  const [data, info] = await Promise.all([readFile(indexPath).catch(() => null), stat(indexPath).catch(() => null)]);
  if (!data || !info) return null;
  let index: GitIndex;
  try {
    // Only the entries the store may leave out, or that refuse the seeding, are made (an IndexSelect): gitlinks, files over
    // the size limit, and the paths that could be secrets, excluded or a .gitattributes, which leftOut then sorts exactly.
    index = readIndex(data, { path: secretPathHint([...options.excluded, '.gitattributes']), size: options.maxFileBytes });
  } catch (error) {
    if (error instanceof UnusableIndex) return null;
    throw error;
  }
  const { entries } = index;
  if (!index.count || entries.some((e) => e.path === '.gitattributes' || e.path.endsWith('/.gitattributes'))) return null;
  if (await configConverts(repoGitDir)) return null;
  const remove = await leftOut(places, entries, options);
  try {
    await mkdir(join(places.gitDir, 'objects', 'info'), { recursive: true });
    await writeFile(join(places.gitDir, ALTERNATES), `${join(repoGitDir, 'objects')}\n`, { mode: 0o600 });
    // Without its cache-tree: git would take a subtree it says matches HEAD's as matching, unlooked (a status's
    // comparison with a seeded HEAD, a write-tree); without it, every entry is compared and every tree made from them.
    // (Its parts written in turn, not copied into one buffer first.)
    await writeFile(git.indexFile, index.withoutCacheTree(), { mode: 0o600 });
    // The copy keeps the original's time, so git's check for files changed in the second the index was written still holds.
    await utimes(git.indexFile, info.atime, info.mtime);
    if (remove.length) await runGit(git, ['update-index', '-z', '--force-remove', '--stdin'], { input: remove.join('\0') + '\0' });
    return { tree: index.tree, removed: remove };
  } catch {
    await unseed(places, git);
    return null;
  }
}

/** Undo a seeding (its index and the borrowed objects). */
export async function unseed(places: StorePlaces, git: GitPlaces): Promise<void> {
  await rm(git.indexFile, { force: true });
  await rm(join(places.gitDir, ALTERNATES), { force: true });
}
