import { randomBytes } from 'node:crypto';
import { mkdir, realpath, rename, rm, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import { cloneRepository } from '../git/git';
import { type MarketplaceManifest, ManifestError, marketplaceManifestFile, readMarketplaceManifest } from './manifest';
import { isInside } from './parts';
import { type MarketplaceRecord, marketplacesDir, readRegistry, updateRegistry } from './store';

const CLONE_TIMEOUT_MS = 120_000;

/** A git address: https://, file://, `owner/name` (GitHub) or anything ending in `.git` that is not a folder. */
export function gitAddress(source: string): string | null {
  if (/^https:\/\//i.test(source) || /^file:\/\//i.test(source)) return source;
  if (/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(source) && !source.startsWith('.')) return `https://github.com/${source}.git`;
  if (/^(http|ssh|git):\/\//i.test(source) || /^[^/]+@[^:]+:/.test(source))
    throw new Error(`"${source}": only https:// and file:// repositories (or a local folder) can be added`);
  return null;
}

/** Clone a repository into a new folder under `parent` (removed again when the clone fails). */
export async function cloneInto(parent: string, url: string, ref?: string): Promise<string> {
  await mkdir(parent, { recursive: true });
  const dest = join(parent, `.clone-${randomBytes(6).toString('hex')}`);
  try {
    await cloneRepository({ cwd: parent, url, dest, ...(ref ? { ref } : {}), timeoutMs: CLONE_TIMEOUT_MS });
    return dest;
  } catch (error) {
    await rm(dest, { recursive: true, force: true });
    throw new Error(`cloning ${url} failed: ${(error as Error).message}`, { cause: error });
  }
}

/** A marketplace's manifest, checked to be a file inside its folder (no link out of it). */
export async function readMarketplace(root: string): Promise<MarketplaceManifest> {
  const file = marketplaceManifestFile(root);
  const real = await realpath(file).catch(() => null);
  if (real && !isInside(await realpath(root), real)) throw new ManifestError(`${file} leads outside the marketplace's folder`);
  return readMarketplaceManifest(root);
}

export interface AddedMarketplace {
  name: string;
  record: MarketplaceRecord;
  manifest: MarketplaceManifest;
}

/** Add a marketplace: a local folder (read in place) or a git repository (cloned into `~/.deft/plugins/marketplaces/<name>`). */
export async function addMarketplace(home: string, source: string, cwd: string): Promise<AddedMarketplace> {
  const trimmed = source.trim();
  if (!trimmed) throw new Error('say which marketplace to add: a folder or a git repository address');
  const local = isAbsolute(trimmed) || trimmed.startsWith('.') || trimmed.startsWith('~') ? resolve(cwd, trimmed) : null;
  const isFolder = local
    ? await stat(local).then(
        (s) => s.isDirectory(),
        () => false,
      )
    : await stat(resolve(cwd, trimmed)).then(
        (s) => s.isDirectory(),
        () => false,
      );
  if (isFolder) {
    const path = await realpath(local ?? resolve(cwd, trimmed));
    const manifest = await readMarketplace(path);
    const record: MarketplaceRecord = { source: path, kind: 'folder', path, addedAt: new Date().toISOString() };
    await register(home, manifest.name, record);
    return { name: manifest.name, record, manifest };
  }
  const url = gitAddress(trimmed);
  if (!url) throw new Error(`"${trimmed}" is neither a folder nor a git repository address`);
  const parent = marketplacesDir(home);
  const clone = await cloneInto(parent, url);
  try {
    const manifest = await readMarketplace(clone);
    const path = join(parent, manifest.name);
    const existing = (await readRegistry(home)).marketplaces[manifest.name];
    if (existing) throw new Error(`a marketplace named "${manifest.name}" is already added (from ${existing.source}); remove it first`);
    await rm(path, { recursive: true, force: true });
    await rename(clone, path);
    const record: MarketplaceRecord = { source: trimmed, kind: 'git', path, addedAt: new Date().toISOString() };
    await register(home, manifest.name, record);
    return { name: manifest.name, record, manifest };
  } finally {
    await rm(clone, { recursive: true, force: true });
  }
}

async function register(home: string, name: string, record: MarketplaceRecord): Promise<void> {
  await updateRegistry(home, (registry) => {
    const existing = registry.marketplaces[name];
    if (existing && existing.path !== record.path) throw new Error(`a marketplace named "${name}" is already added (from ${existing.source}); remove it first`);
    registry.marketplaces[name] = record;
  });
}

/** Fetch a git marketplace again (a folder one is read in place and needs nothing). */
export async function refreshMarketplace(home: string, name: string): Promise<void> {
  const record = (await readRegistry(home)).marketplaces[name];
  if (!record) throw new Error(`no marketplace named "${name}" (see: deft plugin marketplace list)`);
  if (record.kind !== 'git') return;
  const url = gitAddress(record.source);
  if (!url) return;
  const clone = await cloneInto(marketplacesDir(home), url);
  try {
    const manifest = await readMarketplace(clone);
    if (manifest.name !== name) throw new Error(`the repository now names its marketplace "${manifest.name}", not "${name}"`);
    await rm(record.path, { recursive: true, force: true });
    await rename(clone, record.path);
  } finally {
    await rm(clone, { recursive: true, force: true });
  }
}

/** Remove a marketplace and the plugins installed from it; returns their names. */
export async function removeMarketplace(home: string, name: string): Promise<string[]> {
  return updateRegistry(home, async (registry) => {
    const record = registry.marketplaces[name];
    if (!record) throw new Error(`no marketplace named "${name}" (see: deft plugin marketplace list)`);
    const removed: string[] = [];
    for (const [key, plugin] of Object.entries(registry.plugins)) {
      if (plugin.marketplace !== name) continue;
      await rm(plugin.path, { recursive: true, force: true });
      delete registry.plugins[key];
      removed.push(plugin.name);
    }
    if (record.kind === 'git' && isInside(marketplacesDir(home), record.path)) await rm(record.path, { recursive: true, force: true });
    delete registry.marketplaces[name];
    return removed;
  });
}

/** The marketplaces added, each with its manifest (or why it cannot be read). */
export async function listMarketplaces(
  home: string,
): Promise<Array<{ name: string; record: MarketplaceRecord; manifest?: MarketplaceManifest; error?: string }>> {
  const registry = await readRegistry(home);
  return Promise.all(
    Object.entries(registry.marketplaces).map(async ([name, record]) => {
      try {
        return { name, record, manifest: await readMarketplace(record.path) };
      } catch (error) {
        return { name, record, error: (error as Error).message };
      }
    }),
  );
}
