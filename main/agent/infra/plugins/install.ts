import { randomBytes } from 'node:crypto';
import { mkdir, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type MarketplaceEntry, PLUGIN_NAME, pluginManifestFile } from './manifest';
import { cloneInto, readMarketplace } from './marketplaces';
import { copyPluginFolder } from './copy';
import { isInside, pluginParts } from './parts';
import { type PluginRecord, pluginKey, pluginsDir, readRegistry, updateRegistry } from './store';

/** `name@marketplace` split and checked; a name alone is looked up in every marketplace (one must have it). */
export async function resolvePluginRef(home: string, ref: string): Promise<{ name: string; marketplace: string }> {
  const [name = '', marketplace, ...rest] = ref.trim().split('@');
  if (rest.length || !PLUGIN_NAME.test(name) || (marketplace !== undefined && !PLUGIN_NAME.test(marketplace)))
    throw new Error(`"${ref}" is not NAME@MARKETPLACE (names use letters, digits, ".", "_" and "-")`);
  if (marketplace) return { name, marketplace };
  const registry = await readRegistry(home);
  const installed = Object.values(registry.plugins).filter((p) => p.name === name);
  if (installed.length === 1) return { name, marketplace: installed[0]!.marketplace };
  if (installed.length > 1) throw new Error(`"${name}" is installed from ${installed.map((p) => p.marketplace).join(' and ')}; say which: ${name}@MARKETPLACE`);
  const found: string[] = [];
  for (const [mp, record] of Object.entries(registry.marketplaces)) {
    const manifest = await readMarketplace(record.path).catch(() => null);
    if (manifest?.plugins.some((p) => p.name === name)) found.push(mp);
  }
  if (found.length === 1) return { name, marketplace: found[0]! };
  if (!found.length) throw new Error(`no marketplace offers "${name}" (see: deft plugin marketplace list)`);
  throw new Error(`"${name}" is offered by ${found.join(' and ')}; say which: ${name}@MARKETPLACE`);
}

/** The marketplace entry for a plugin and the folder its files come from (fetched into `scratch` when it is a repository). */
async function fetchSource(home: string, name: string, marketplace: string, scratch: string): Promise<{ entry: MarketplaceEntry; folder: string }> {
  const record = (await readRegistry(home)).marketplaces[marketplace];
  if (!record) throw new Error(`no marketplace named "${marketplace}" (add it: deft plugin marketplace add SOURCE)`);
  const manifest = await readMarketplace(record.path);
  const entry = manifest.plugins.find((p) => p.name === name);
  if (!entry) throw new Error(`marketplace "${marketplace}" has no plugin "${name}" (it offers: ${manifest.plugins.map((p) => p.name).join(', ') || 'none'})`);
  const { source } = entry;
  if (typeof source === 'string') {
    const root = await realpath(record.path);
    const base = manifest.metadata?.pluginRoot && !source.startsWith('./') ? resolve(root, manifest.metadata.pluginRoot) : root;
    const wanted = resolve(base, source);
    if (!isInside(root, wanted)) throw new Error(`plugin "${name}": its source "${source}" is outside the marketplace's folder; refused`);
    const real = await realpath(wanted).catch(() => null);
    if (!real) throw new Error(`plugin "${name}": its folder ${wanted} does not exist`);
    if (!isInside(root, real)) throw new Error(`plugin "${name}": its source "${source}" leads outside the marketplace's folder (a symbolic link); refused`);
    return { entry, folder: real };
  }
  const url = source.source === 'github' ? `https://github.com/${source.repo}.git` : source.url;
  if (!/^(https|file):\/\//i.test(url)) throw new Error(`plugin "${name}": only https:// and file:// repositories can be installed, not ${url}`);
  return { entry, folder: await cloneInto(scratch, url, source.ref) };
}

/** Install (or reinstall) a plugin into `~/.deft/plugins/<marketplace>/<name>/`, enabled unless it was disabled. */
export async function installPlugin(home: string, ref: string): Promise<PluginRecord> {
  const { name, marketplace } = await resolvePluginRef(home, ref);
  const parent = join(pluginsDir(home), marketplace);
  await mkdir(parent, { recursive: true });
  const scratch = join(parent, `.install-${randomBytes(6).toString('hex')}`);
  try {
    const { entry, folder } = await fetchSource(home, name, marketplace, scratch);
    const staged = join(scratch, 'plugin');
    await copyPluginFolder(folder, staged);
    if (entry.strict === false) {
      // The entry is the manifest: Claude Code's `strict: false` plugins have no plugin.json of their own.
      const exists = await pluginParts(staged).then(
        () => true,
        () => false,
      );
      if (!exists) {
        await mkdir(join(staged, '.claude-plugin'), { recursive: true });
        const { source: _source, strict: _strict, category: _category, ...manifest } = entry;
        await writeFile(pluginManifestFile(staged), JSON.stringify(manifest, null, 2));
      }
    }
    const parts = await pluginParts(staged);
    if (parts.manifest.name !== name) throw new Error(`the marketplace lists "${name}" but its plugin.json names "${parts.manifest.name}"`);
    const target = join(parent, name);
    return await updateRegistry(home, async (registry) => {
      const key = pluginKey(name, marketplace);
      const previous = registry.plugins[key];
      await rm(target, { recursive: true, force: true });
      await rename(staged, target);
      const version = parts.manifest.version ?? entry.version;
      const record: PluginRecord = {
        name,
        marketplace,
        ...(version ? { version } : {}),
        source: entry.source,
        enabled: previous?.enabled ?? true,
        installedAt: new Date().toISOString(),
        path: target,
      };
      registry.plugins[key] = record;
      return record;
    });
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function installedKey(home: string, ref: string): Promise<string> {
  const { name, marketplace } = await resolvePluginRef(home, ref);
  const key = pluginKey(name, marketplace);
  if (!(await readRegistry(home)).plugins[key]) throw new Error(`"${key}" is not installed (see: deft plugin list)`);
  return key;
}

export async function setPluginEnabled(home: string, ref: string, enabled: boolean): Promise<PluginRecord> {
  const key = await installedKey(home, ref);
  return updateRegistry(home, (registry) => {
    const record = registry.plugins[key]!;
    record.enabled = enabled;
    return record;
  });
}

export async function removePlugin(home: string, ref: string): Promise<PluginRecord> {
  const key = await installedKey(home, ref);
  return updateRegistry(home, async (registry) => {
    const record = registry.plugins[key]!;
    if (isInside(pluginsDir(home), record.path)) await rm(record.path, { recursive: true, force: true });
    delete registry.plugins[key];
    return record;
  });
}
