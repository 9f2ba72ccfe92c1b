import { type PluginParts, pluginParts } from './parts';
import { enabledPlugins, pluginsFile } from './store';
import { stat } from 'node:fs/promises';

/** An enabled plugin's parts, with its name and marketplace; plugins whose folder or manifest is broken are left out with a problem. */
export interface EnabledPlugin extends PluginParts {
  name: string;
  marketplace: string;
}

/** The parts of every enabled plugin (what skills, commands, agents, hooks and MCP servers read). Never throws. */
export async function enabledPluginParts(home: string): Promise<{ plugins: EnabledPlugin[]; problems: Array<{ file: string; message: string }> }> {
  const plugins: EnabledPlugin[] = [];
  const problems: Array<{ file: string; message: string }> = [];
  for (const record of await enabledPlugins(home)) {
    try {
      const parts = await pluginParts(record.path);
      plugins.push({ ...parts, name: record.name, marketplace: record.marketplace });
      for (const message of parts.problems) problems.push({ file: record.path, message: `plugin ${record.name}: ${message}` });
    } catch (error) {
      problems.push({ file: record.path, message: `plugin ${record.name}@${record.marketplace} is not used: ${(error as Error).message}` });
    }
  }
  return { plugins, problems };
}

/** Changes when the registry changes (enable, disable, install, remove): part of the caches' keys. */
export async function registryStamp(home: string): Promise<string> {
  return stat(pluginsFile(home)).then(
    (s) => `${s.mtimeMs}:${s.size}:${s.ino}`,
    () => '-',
  );
}
