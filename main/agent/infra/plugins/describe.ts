import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hookSchemas } from '#protocol/schemas/hooks';
import { markdownNames, pluginParts } from './parts';
import { readdir, stat } from 'node:fs/promises';

/** What a plugin brings, as the user sees it before and after installing. Hooks and MCP servers run code. */
export interface PluginContents {
  name: string;
  version?: string;
  description?: string;
  skills: string[];
  commands: string[];
  agents: string[];
  /** Each runs a command as the user on an event. */
  hooks: Array<{ event: string; command: string }>;
  /** Each starts a program (or connects to an address). */
  mcpServers: Array<{ name: string; command: string }>;
  problems: string[];
}

async function skillNames(dirs: readonly string[]): Promise<string[]> {
  const names: string[] = [];
  for (const dir of dirs)
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (!entry.isDirectory()) continue;
      if (
        await stat(join(dir, entry.name, 'SKILL.md')).then(
          (s) => s.isFile(),
          () => false,
        )
      )
        names.push(entry.name);
    }
  return names.sort();
}

/** Read a plugin folder (installed or still in its marketplace) and say what it brings. A bad manifest throws. */
export async function describePlugin(root: string): Promise<PluginContents> {
  const parts = await pluginParts(root);
  const hooks: PluginContents['hooks'] = [];
  for (const { section } of parts.hooks) {
    if (!section || typeof section !== 'object') continue;
    for (const [event, groups] of Object.entries(section)) {
      if (!hookSchemas().HookEventName.safeParse(event).success || !Array.isArray(groups)) continue;
      for (const group of groups as Array<{ hooks?: Array<{ command?: unknown }> }>)
        for (const hook of group?.hooks ?? []) if (typeof hook?.command === 'string') hooks.push({ event, command: hook.command });
    }
  }
  const mcpServers: PluginContents['mcpServers'] = [];
  for (const { servers } of parts.mcp)
    for (const [name, config] of Object.entries(servers)) {
      const { command, args, url } = (config ?? {}) as { command?: unknown; args?: unknown; url?: unknown };
      const line = typeof command === 'string' ? [command, ...(Array.isArray(args) ? args.map(String) : [])].join(' ') : typeof url === 'string' ? url : '?';
      mcpServers.push({ name, command: line });
    }
  const commands: string[] = [];
  for (const dir of parts.commandDirs) commands.push(...(await markdownNames(dir)));
  const agents: string[] = [];
  for (const dir of parts.agentDirs) agents.push(...(await markdownNames(dir)).filter((n) => !n.includes(':')));
  return {
    name: parts.manifest.name,
    ...(parts.manifest.version ? { version: parts.manifest.version } : {}),
    ...(parts.manifest.description ? { description: parts.manifest.description } : {}),
    skills: await skillNames(parts.skillDirs),
    commands,
    agents,
    hooks,
    mcpServers,
    problems: parts.problems,
  };
}

/** The plugins a workspace's `.deft/settings.json` suggests (`"enabledPlugins": {"name@marketplace": true}` or a list). */
export async function suggestedPlugins(workspace: string): Promise<string[]> {
  try {
    const raw = JSON.parse(await readFile(join(workspace, '.deft', 'settings.json'), 'utf8')) as { enabledPlugins?: unknown };
    const value = raw?.enabledPlugins;
    const names = Array.isArray(value)
      ? value.filter((v): v is string => typeof v === 'string')
      : value && typeof value === 'object'
        ? Object.entries(value)
            .filter(([, on]) => on === true)
            .map(([name]) => name)
        : [];
    return names.filter((n) => /^[A-Za-z0-9._-]{1,64}(@[A-Za-z0-9._-]{1,64})?$/.test(n)).slice(0, 50);
  } catch {
    return [];
  }
}
