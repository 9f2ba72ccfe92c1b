import type { PluginOverview } from '#protocol';
import { deft } from '../bridge';
import { attempt } from './attempt';
import { type Outcome, outcome } from './outcome';
import { refreshSkills } from './skills';

// Settings → Plugins (issue 32): marketplaces and plugins. The core resolves every path; the window sends names.

export const loadPlugins = () => attempt(() => deft.listPlugins({}));

/** A change, then the new overview; the skills follow at once (an enabled plugin's skills and commands). */
async function change(run: () => Promise<{ overview: PluginOverview }>): Promise<Outcome<PluginOverview>> {
  const done = await outcome(async () => (await run()).overview);
  if (done.ok) await refreshSkills(true);
  return done;
}

export const addPluginMarketplace = (source: string) => change(() => deft.addPluginMarketplace({ source }));
export const removePluginMarketplace = (name: string) => change(() => deft.removePluginMarketplace({ name }));
export const installPlugin = (ref: string) => change(() => deft.installPlugin({ ref }));
export const setPluginEnabled = (ref: string, enabled: boolean) => change(() => deft.setPluginEnabled({ ref, enabled }));
export const updatePlugin = (ref: string) => change(() => deft.updatePlugin({ ref }));
export const removePlugin = (ref: string) => change(() => deft.removePlugin({ ref }));
