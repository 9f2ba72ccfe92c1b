import type { CapabilityFactory } from '#contract/capability';
import { CommandError } from '#contract/errors';
import { pluginOverview, updatePlugin } from '#infra/plugins/catalog';
import { installPlugin, removePlugin, setPluginEnabled } from '#infra/plugins/install';
import { addMarketplace, removeMarketplace } from '#infra/plugins/marketplaces';
import { TrustStore } from '#infra/settings/trust';

/**
 * The Plugins page's commands (infra/plugins): marketplaces, install, enable/disable, update, remove. The parts of
 * enabled plugins are read by the skills, agents, hooks and MCP capabilities themselves. A workspace's suggested
 * plugins are listed only once the folder is trusted, and never installed by themselves.
 */
export const pluginsCapability: CapabilityFactory = (core) => {
  const overview = async () => {
    const local = core.place.environment.kind === 'local';
    const trusted = local && (await new TrustStore(core.home, core.place).get().catch(() => ({ trusted: false }))).trusted;
    return pluginOverview(core.home, trusted ? core.workspace : undefined);
  };
  const act = async (work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (error) {
      throw new CommandError('invalid_request', `Plugins: ${(error as Error)?.message ?? String(error)}`);
    }
    return { overview: await overview() };
  };
  return {
    name: 'plugins',
    commands: {
      listPlugins: () => overview(),
      addPluginMarketplace: ({ source }) => act(() => addMarketplace(core.home, source, core.home)),
      removePluginMarketplace: ({ name }) => act(() => removeMarketplace(core.home, name)),
      installPlugin: ({ ref }) => act(() => installPlugin(core.home, ref)),
      setPluginEnabled: ({ ref, enabled }) => act(() => setPluginEnabled(core.home, ref, enabled)),
      updatePlugin: ({ ref }) => act(() => updatePlugin(core.home, ref)),
      removePlugin: ({ ref }) => act(() => removePlugin(core.home, ref)),
    },
  };
};
