import { readFile, readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { type PluginManifest, readPluginManifest } from './manifest';

/** What an installed plugin brings, where each part is read from. Paths are inside the plugin's folder. */
export interface PluginParts {
  root: string;
  manifest: PluginManifest;
  skillDirs: string[];
  commandDirs: string[];
  agentDirs: string[];
  /** Hook sections (the `"hooks"` object of Claude Code's hooks.json), `${CLAUDE_PLUGIN_ROOT}` expanded. */
  hooks: Array<{ file: string; section: unknown }>;
  /** MCP servers by name, `${CLAUDE_PLUGIN_ROOT}` expanded. */
  mcp: Array<{ file: string; servers: Record<string, unknown> }>;
  /** What could not be used (the rest still is). */
  problems: string[];
}

const MAX_PART_FILE = 512 * 1024;

/** Whether `path` is `root` or inside it (both resolved, real paths). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(sep));
}

/** `${CLAUDE_PLUGIN_ROOT}` replaced in every string of a JSON value. */
export function expandPluginRoot<T>(value: T, root: string): T {
  if (typeof value === 'string') return value.replaceAll('${CLAUDE_PLUGIN_ROOT}', root) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => expandPluginRoot(v, root)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandPluginRoot(v, root)])) as T;
  return value;
}

/** A path the manifest names, kept only when it stays inside the plugin (symbolic links followed). */
async function inside(root: string, path: string, problems: string[]): Promise<string | null> {
  const target = resolve(root, path.replaceAll('${CLAUDE_PLUGIN_ROOT}', root));
  try {
    const real = await realpath(target);
    if (!isInside(await realpath(root), real)) {
      problems.push(`"${path}" leads outside the plugin's folder; it is not used`);
      return null;
    }
    return real;
  } catch {
    return null;
  }
}

const list = (value: string | string[] | undefined) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

async function readJson(file: string): Promise<unknown> {
  const info = await stat(file);
  if (!info.isFile()) throw new Error('not a regular file');
  if (info.size > MAX_PART_FILE) throw new Error(`larger than ${MAX_PART_FILE / 1024} KB`);
  return JSON.parse(await readFile(file, 'utf8')) as unknown;
}

async function dirs(root: string, fallback: string, extra: string | string[] | undefined, problems: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const path of [fallback, ...list(extra)]) {
    const dir = await inside(root, path, problems);
    if (
      dir &&
      (await stat(dir).then(
        (s) => s.isDirectory(),
        () => false,
      )) &&
      !found.includes(dir)
    )
      found.push(dir);
  }
  return found;
}

/** Read a plugin folder's manifest and parts. A bad manifest throws a ManifestError; a bad part is a problem. */
export async function pluginParts(root: string): Promise<PluginParts> {
  const manifest = await readPluginManifest(root);
  const problems: string[] = [];
  const real = await realpath(root);
  const parts: PluginParts = {
    root: real,
    manifest,
    skillDirs: await dirs(real, 'skills', manifest.skills, problems),
    commandDirs: await dirs(real, 'commands', manifest.commands, problems),
    agentDirs: await dirs(real, 'agents', manifest.agents, problems),
    hooks: [],
    mcp: [],
    problems,
  };
  const hookFiles = typeof manifest.hooks === 'object' && !Array.isArray(manifest.hooks) ? [] : ['hooks/hooks.json', ...list(manifest.hooks)];
  if (manifest.hooks && typeof manifest.hooks === 'object' && !Array.isArray(manifest.hooks))
    parts.hooks.push({ file: join(real, '.claude-plugin', 'plugin.json'), section: expandPluginRoot(hooksSection(manifest.hooks), real) });
  for (const path of new Set(hookFiles)) {
    const file = await inside(real, path, problems);
    if (!file) continue;
    try {
      parts.hooks.push({ file, section: expandPluginRoot(hooksSection(await readJson(file)), real) });
    } catch (error) {
      problems.push(`${file}: ${(error as Error).message}; its hooks are not used`);
    }
  }
  const inline = manifest.mcpServers && typeof manifest.mcpServers === 'object' && !Array.isArray(manifest.mcpServers);
  if (inline) parts.mcp.push({ file: join(real, '.claude-plugin', 'plugin.json'), servers: expandPluginRoot(serversOf(manifest.mcpServers), real) });
  for (const path of new Set(['.mcp.json', ...(inline ? [] : list(manifest.mcpServers as string | string[] | undefined))])) {
    const file = await inside(real, path, problems);
    if (!file) continue;
    try {
      parts.mcp.push({ file, servers: expandPluginRoot(serversOf(await readJson(file)), real) });
    } catch (error) {
      problems.push(`${file}: ${(error as Error).message}; its MCP servers are not used`);
    }
  }
  return parts;
}

/** Claude Code's hooks.json holds `{"hooks": {...}}`; a bare `{"PreToolUse": [...]}` is taken too. */
function hooksSection(raw: unknown): unknown {
  if (raw && typeof raw === 'object' && !Array.isArray(raw) && 'hooks' in raw) return raw.hooks;
  return raw;
}

/** A plugin's `.mcp.json` holds `{"mcpServers": {...}}` or the servers by name directly. */
function serversOf(raw: unknown): Record<string, unknown> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('must be a JSON object of servers');
  const inner = (raw as { mcpServers?: unknown }).mcpServers;
  if (inner !== undefined) {
    if (!inner || typeof inner !== 'object' || Array.isArray(inner)) throw new Error('"mcpServers" must be an object of servers by name');
    return inner as Record<string, unknown>;
  }
  return raw as Record<string, unknown>;
}

/** Names of the `.md` files under a folder (`sub/name.md` → `sub:name`), at most `limit`. */
export async function markdownNames(dir: string, limit = 200, prefix = '', depth = 0): Promise<string[]> {
  if (depth > 6) return [];
  const names: string[] = [];
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (names.length >= limit) break;
    if (entry.isDirectory()) names.push(...(await markdownNames(join(dir, entry.name), limit - names.length, `${prefix}${entry.name}:`, depth + 1)));
    else if (entry.isFile() && entry.name.toLowerCase().endsWith('.md')) names.push(prefix + entry.name.slice(0, -3));
  }
  return names;
}
