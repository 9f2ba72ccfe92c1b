import type { ConnectionTest, DataInfo, ProviderProbeInput, ProviderSettingsInput } from '#protocol';
import { deft } from '../bridge';
import { useSettings } from '../stores/settings';

// The provider form shows these failures itself (beside the fields), so they are thrown, not put in the banner.

/** Save the model provider; an absent key keeps the stored one. */
export async function saveProvider(provider: ProviderSettingsInput): Promise<void> {
  const settings = await deft.setSettings({ provider });
  useSettings.getState().setSettings(settings);
}

/** The models a provider's server offers (the saved provider's when none is given). */
export async function listModels(provider?: ProviderProbeInput): Promise<string[]> {
  const { models } = await deft.listModels(provider ? { provider } : {});
  return models;
}

/** One tiny request to the provider as typed (nothing is saved). Throws what went wrong. */
export function testConnection(provider: ProviderSettingsInput): Promise<ConnectionTest> {
  return deft.testConnection({ provider });
}

/** Where Deft keeps its data and the disk its sessions use. */
export function dataInfo(): Promise<DataInfo> {
  return deft.getDataInfo();
}
