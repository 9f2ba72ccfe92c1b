import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { builtOnce } from '#protocol/helpers/built-once';

/**
 * Claude Code's plugin and marketplace manifests, read unchanged: `.claude-plugin/plugin.json` and
 * `.claude-plugin/marketplace.json`. Unknown keys are kept (other tools add their own); what Deft uses is checked.
 */

/** A plugin or marketplace name: letters, digits, `-`, `_`, `.`; no path separator, no control character, not `.`/`..`. */
export const PLUGIN_NAME = /^(?!\.{1,2}$)[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const MAX_MANIFEST_BYTES = 256 * 1024;

// Built the first time a manifest is read: a run with no plugin to read (a one-shot text turn) builds none of them.
const schemas = builtOnce(() => {
  const PluginName = z.string().regex(PLUGIN_NAME, 'a name may use only letters, digits, ".", "_" and "-" (at most 64, no path separators)');
  const Person = z.union([z.string(), z.looseObject({ name: z.string().optional(), email: z.string().optional(), url: z.string().optional() })]);
  /** A path inside the plugin (`./extra-commands`), or a list of them. */
  const PathOrPaths = z.union([z.string().min(1), z.array(z.string().min(1)).max(32)]);

  const PluginManifest = z.looseObject({
    name: PluginName,
    version: z.string().max(64).optional(),
    description: z.string().max(4_000).optional(),
    author: Person.optional(),
    homepage: z.string().optional(),
    repository: z.string().optional(),
    license: z.string().optional(),
    keywords: z.array(z.string()).optional(),
    commands: PathOrPaths.optional(),
    agents: PathOrPaths.optional(),
    skills: PathOrPaths.optional(),
    /** A path to a hooks file, or the hooks themselves. */
    hooks: z.union([PathOrPaths, z.record(z.string(), z.unknown())]).optional(),
    /** A path to an MCP file, or the servers themselves. */
    mcpServers: z.union([PathOrPaths, z.record(z.string(), z.unknown())]).optional(),
  });

  /** Where a marketplace's plugin comes from: a folder inside the marketplace, or a repository. */
  const PluginSource = z.union([
    z.string().min(1),
    z.looseObject({
      source: z.literal('github'),
      repo: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'repo must be "owner/name"'),
      ref: z.string().optional(),
    }),
    z.looseObject({ source: z.enum(['git', 'url']), url: z.string().min(1), ref: z.string().optional() }),
  ]);

  const MarketplaceEntry = z.looseObject({
    name: PluginName,
    source: PluginSource,
    description: z.string().max(4_000).optional(),
    version: z.string().max(64).optional(),
    author: Person.optional(),
    category: z.string().optional(),
    /** Claude Code: when false, the entry itself is the manifest (no plugin.json needed). */
    strict: z.boolean().optional(),
  });

  const MarketplaceManifest = z.looseObject({
    name: PluginName,
    owner: Person.optional(),
    metadata: z.looseObject({ pluginRoot: z.string().optional(), description: z.string().optional(), version: z.string().optional() }).optional(),
    plugins: z.array(MarketplaceEntry).max(1_000),
  });
  return { PluginManifest, PluginSource, MarketplaceEntry, MarketplaceManifest };
});
type Schemas = ReturnType<typeof schemas>;
export type PluginManifest = z.infer<Schemas['PluginManifest']>;
export type PluginSource = z.infer<Schemas['PluginSource']>;
export type MarketplaceEntry = z.infer<Schemas['MarketplaceEntry']>;
export type MarketplaceManifest = z.infer<Schemas['MarketplaceManifest']>;

/** A manifest that cannot be used: the message names the file and what is wrong. */
export class ManifestError extends Error {
  override name = 'ManifestError';
}

function describe(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message))
    .join('; ');
}

/** Read and check a JSON manifest; a missing, oversized, broken or wrong one is a ManifestError. */
export async function readManifest<T>(file: string, schema: z.ZodType<T>, what: string): Promise<T> {
  let text: string;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new ManifestError(`${file} is not a regular file`);
    if (info.size > MAX_MANIFEST_BYTES) throw new ManifestError(`${file} is larger than ${MAX_MANIFEST_BYTES / 1024} KB`);
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof ManifestError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new ManifestError(code === 'ENOENT' ? `${what}: ${file} was not found` : `${what}: ${file} cannot be read (${code ?? (error as Error).message})`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ManifestError(`${what}: ${file} is not valid JSON (${(error as Error).message})`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ManifestError(`${what}: ${file} is not valid: ${describe(parsed.error)}`);
  return parsed.data;
}

export const pluginManifestFile = (root: string) => join(root, '.claude-plugin', 'plugin.json');
export const marketplaceManifestFile = (root: string) => join(root, '.claude-plugin', 'marketplace.json');

/** A plugin folder's manifest (a ManifestError when it is missing or wrong). */
export function readPluginManifest(root: string): Promise<PluginManifest> {
  return readManifest(pluginManifestFile(root), schemas().PluginManifest, 'plugin manifest');
}

export function readMarketplaceManifest(root: string): Promise<MarketplaceManifest> {
  return readManifest(marketplaceManifestFile(root), schemas().MarketplaceManifest, 'marketplace manifest');
}
