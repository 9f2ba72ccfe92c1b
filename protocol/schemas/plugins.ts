import { z } from 'zod';

// Claude Code plugins and marketplaces (issue 32): see docs/plugins.md.

/** NAME or NAME@MARKETPLACE: letters, digits, ".", "_", "-". */
const PluginRef = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}(@[A-Za-z0-9][A-Za-z0-9._-]{0,63})?$/, 'NAME@MARKETPLACE');
const Name = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'a marketplace name');

/** What a plugin brings. Hooks and MCP servers run code. */
export const PluginContents = z.object({
  name: z.string(),
  version: z.string().optional(),
  description: z.string().optional(),
  skills: z.array(z.string()),
  commands: z.array(z.string()),
  agents: z.array(z.string()),
  hooks: z.array(z.object({ event: z.string(), command: z.string() })),
  mcpServers: z.array(z.object({ name: z.string(), command: z.string() })),
  problems: z.array(z.string()),
});
export type PluginContents = z.infer<typeof PluginContents>;

export const InstalledPlugin = z.object({
  name: z.string(),
  marketplace: z.string(),
  version: z.string().optional(),
  source: z.unknown(),
  enabled: z.boolean(),
  installedAt: z.string(),
  path: z.string(),
  contents: PluginContents.optional(),
  error: z.string().optional(),
});
export type InstalledPlugin = z.infer<typeof InstalledPlugin>;

export const OfferedPlugin = z.object({
  name: z.string(),
  marketplace: z.string(),
  description: z.string().optional(),
  version: z.string().optional(),
  from: z.string(),
  installed: z.boolean(),
  contents: PluginContents.optional(),
  error: z.string().optional(),
});
export type OfferedPlugin = z.infer<typeof OfferedPlugin>;

export const PluginOverview = z.object({
  marketplaces: z.array(
    z.object({ name: z.string(), source: z.string(), kind: z.enum(['folder', 'git']), plugins: z.array(OfferedPlugin), error: z.string().optional() }),
  ),
  installed: z.array(InstalledPlugin),
  /** Plugins the workspace's `.deft/settings.json` suggests (`enabledPlugins`) that are not installed: offered once the folder is trusted, never installed by themselves. */
  suggested: z.array(z.string()),
});
export type PluginOverview = z.infer<typeof PluginOverview>;

const Done = z.object({ overview: PluginOverview });

/** Commands merged into the command table: built with it, on first use (commandSchemas). */
export function pluginCommands() {
  return {
    /** Marketplaces with their plugins (and what each brings), the installed plugins, and the workspace's suggestions (empty until it is trusted). */
    listPlugins: { input: z.object({}).strict(), output: PluginOverview },
    /** Add a marketplace: a folder (absolute) or a git repository (https://, file://, owner/name on GitHub). */
    addPluginMarketplace: { input: z.object({ source: z.string().min(1).max(2_000) }).strict(), output: Done },
    /** Remove a marketplace and the plugins installed from it. */
    removePluginMarketplace: { input: z.object({ name: Name }).strict(), output: Done },
    /** Install a plugin (the user's act of trust: its hooks and MCP servers run as the user's own). */
    installPlugin: { input: z.object({ ref: PluginRef }).strict(), output: Done },
    setPluginEnabled: { input: z.object({ ref: PluginRef, enabled: z.boolean() }).strict(), output: Done },
    updatePlugin: { input: z.object({ ref: PluginRef }).strict(), output: Done },
    removePlugin: { input: z.object({ ref: PluginRef }).strict(), output: Done },
  };
}
