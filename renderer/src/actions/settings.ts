import type { ProviderSettingsInput } from '../../../protocol';
import { deft } from '../bridge';
import { useSettings } from '../stores/settings';

// The provider form shows these failures itself (beside the fields), so they are thrown, not put in the banner.

/** Save the model provider; an absent key keeps the stored one. */
export async function saveProvider(provider: ProviderSettingsInput): Promise<void> {
  const settings = await deft.setSettings({ provider });
  useSettings.getState().setSettings(settings);
}

/** The models the provider's server offers. */
export async function listModels(provider: ProviderSettingsInput): Promise<string[]> {
  const { models } = await deft.listModels({ provider });
  return models;
}
