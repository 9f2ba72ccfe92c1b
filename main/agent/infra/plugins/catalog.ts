import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type PluginContents, describePlugin, suggestedPlugins } from './describe';
import { installPlugin, resolvePluginRef } from './install';
import { listMarketplaces, refreshMarketplace } from './marketplaces';
import { isInside } from './parts';
import { type PluginRecord, pluginKey, readRegistry } from './store';

/** An installed plugin with what it brings (or why it cannot be read). */
export interface InstalledPlugin extends PluginRecord {
  contents?: PluginContents;
  error?: string;
}

/** A marketplace's plugin, and what it brings when its files are in the marketplace (a repository source is read at install). */
export interface OfferedPlugin {
  name: string;
  marketplace: string;
  description?: string;
  version?: string;
  /** Where it comes from, in words: a folder of the marketplace or a repository address. */
  from: string;
  installed: boolean;
  contents?: PluginContents;
  error?: string;
}

export interface PluginOverview {
  marketplaces: Array<{ name: string; source: string; kind: 'folder' | 'git'; plugins: OfferedPlugin[]; error?: string }>;
  installed: InstalledPlugin[];
  /** Plugins the workspace's `.deft/settings.json` suggests (`enabledPlugins`) that are not installed: offered, never installed by themselves. */
  suggested: string[];
}

export async function installedPlugins(home: string): Promise<InstalledPlugin[]> {
  const registry = await readRegistry(home);
  return Promise.all(
    Object.values(registry.plugins).map(async (record) => {
      try {
        return { ...record, contents: await describePlugin(record.path) };
      } catch (error) {
        return { ...record, error: (error as Error).message };
      }
    }),
  );
}

/** Everything the Plugins page and `deft plugin list` show. */
export async function pluginOverview(home: string, workspace?: string): Promise<PluginOverview> {
  const registry = await readRegistry(home);
  const installed = await installedPlugins(home);
  const marketplaces: PluginOverview['marketplaces'] = [];
  for (const { name, record, manifest, error } of await listMarketplaces(home)) {
    const plugins: OfferedPlugin[] = [];
    for (const entry of manifest?.plugins ?? []) {
      const offered: OfferedPlugin = {
        name: entry.name,
        marketplace: name,
        ...(entry.description ? { description: entry.description } : {}),
        ...(entry.version ? { version: entry.version } : {}),
        from: typeof entry.source === 'string' ? entry.source : entry.source.source === 'github' ? `github:${entry.source.repo}` : entry.source.url,
        installed: Boolean(registry.plugins[pluginKey(entry.name, name)]),
      };
      if (typeof entry.source === 'string') {
        try {
          const root = await realpath(record.path);
          const folder = await realpath(resolve(root, entry.source));
          if (!isInside(root, folder)) throw new Error(`its source "${entry.source}" is outside the marketplace's folder; it cannot be installed`);
          offered.contents = await describePlugin(folder);
        } catch (e) {
          offered.error = (e as Error).message;
        }
      }
      plugins.push(offered);
    }
    marketplaces.push({ name, source: record.source, kind: record.kind, plugins, ...(error ? { error } : {}) });
  }
  const suggested = workspace
    ? (await suggestedPlugins(workspace)).filter((ref) => !installed.some((p) => ref === pluginKey(p.name, p.marketplace) || ref === p.name))
    : [];
  return { marketplaces, installed, suggested };
}

/** Fetch the plugin's marketplace again (a git one) and reinstall it, keeping it enabled or disabled. */
export async function updatePlugin(home: string, ref: string): Promise<PluginRecord> {
  const { name, marketplace } = await resolvePluginRef(home, ref);
  if (!(await readRegistry(home)).plugins[pluginKey(name, marketplace)]) throw new Error(`"${name}@${marketplace}" is not installed (see: deft plugin list)`);
  await refreshMarketplace(home, marketplace);
  return installPlugin(home, `${name}@${marketplace}`);
}
