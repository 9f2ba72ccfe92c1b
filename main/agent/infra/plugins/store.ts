import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../platform/files';
import { builtOnce } from '#protocol/helpers/built-once';

/**
 * The registry's format, built the first time the file is read (registrySchema): a run where there is none (the CLI's
 * text turn, with no plugin installed) never builds it.
 */
const buildRegistry = () => {
  /** `~/.deft/plugins.json`: the marketplaces added and the plugins installed (each enabled or not). */
  const MarketplaceRecord = z.object({
    /** As the user gave it: a folder or a git address. */
    source: z.string(),
    kind: z.enum(['folder', 'git']),
    /** The folder read: the user's folder, or the clone under `~/.deft/plugins/marketplaces/`. */
    path: z.string(),
    addedAt: z.string(),
  });

  const PluginRecord = z.object({
    name: z.string(),
    marketplace: z.string(),
    version: z.string().optional(),
    /** The marketplace entry's source, as written. */
    source: z.unknown(),
    enabled: z.boolean(),
    installedAt: z.string(),
    /** The installed copy: `~/.deft/plugins/<marketplace>/<plugin>/`. */
    path: z.string(),
  });

  const Registry = z.object({
    marketplaces: z.record(z.string(), MarketplaceRecord).default({}),
    plugins: z.record(z.string(), PluginRecord).default({}),
  });

  return { MarketplaceRecord, PluginRecord, Registry };
};
type RegistrySchemas = ReturnType<typeof buildRegistry>;
const registrySchemas: () => RegistrySchemas = builtOnce(buildRegistry);
export type MarketplaceRecord = z.infer<RegistrySchemas['MarketplaceRecord']>;
export type PluginRecord = z.infer<RegistrySchemas['PluginRecord']>;
export type PluginRegistry = z.infer<RegistrySchemas['Registry']>;

export const pluginsFile = (home: string) => join(home, 'plugins.json');
export const pluginsDir = (home: string) => join(home, 'plugins');
export const marketplacesDir = (home: string) => join(home, 'plugins', 'marketplaces');
export const pluginKey = (name: string, marketplace: string) => `${name}@${marketplace}`;

/** The registry; an empty one when there is none. A broken file is an error naming it (never overwritten silently). */
export async function readRegistry(home: string): Promise<PluginRegistry> {
  let text: string;
  try {
    text = await readFile(pluginsFile(home), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { marketplaces: {}, plugins: {} };
    throw new Error(`${pluginsFile(home)} cannot be read: ${(error as Error).message}`, { cause: error });
  }
  let raw: unknown;
  try {
    raw = text.trim() ? JSON.parse(text) : {};
  } catch (error) {
    throw new Error(`${pluginsFile(home)} is not valid JSON (${(error as Error).message}); fix or remove it`, { cause: error });
  }
  const parsed = registrySchemas().Registry.safeParse(raw);
  if (!parsed.success) throw new Error(`${pluginsFile(home)} is not a plugin registry: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

export async function writeRegistry(home: string, registry: PluginRegistry): Promise<void> {
  await mkdir(home, { recursive: true });
  await writeFileAtomic(pluginsFile(home), `${JSON.stringify(registry, null, 2)}\n`, 0o600);
}

/** Change the registry under one read-modify-write (calls in one process are queued). */
let queue: Promise<unknown> = Promise.resolve();
export function updateRegistry<T>(home: string, change: (registry: PluginRegistry) => Promise<T> | T): Promise<T> {
  const run = queue.then(async () => {
    const registry = await readRegistry(home);
    const result = await change(registry);
    await writeRegistry(home, registry);
    return result;
  });
  queue = run.catch(() => {});
  return run;
}

/** The installed, enabled plugins (what the skills, agents, hooks and MCP servers read). A broken registry is none. */
export async function enabledPlugins(home: string): Promise<PluginRecord[]> {
  try {
    const registry = await readRegistry(home);
    return Object.values(registry.plugins).filter((p) => p.enabled);
  } catch {
    return [];
  }
}
