import type { AppEvent, ProviderSettingsInput, PublicSettings } from '../../../protocol';
import type { CommandHandlers } from '../contract/commands';
import { CommandError } from '../contract/errors';
import { trimBaseUrl } from '../infra/providers/base-url';
import { ProviderError } from '../infra/providers/errors';
import { createProvider } from '../infra/providers/index';
import { type ProviderConfig, type ProviderOverrides, publicProvider, resolveProviderConfig } from '../infra/settings/provider-config';
import type { SecretStore } from '../infra/settings/secrets';
import { SettingsStore, secretKeyFor } from '../infra/settings/settings-store';

export interface ProviderSettingsOptions {
  home: string;
  secrets: SecretStore;
  /** Provider values that win over saved settings (CLI flags, DEFT_* variables). */
  overrides?: ProviderOverrides;
  fetch?: typeof fetch;
  emit(event: AppEvent): void;
}

/** The model provider a core talks to: resolved from settings, the secret store and overrides; and the settings commands. */
export class ProviderSettings {
  private readonly store: SettingsStore;

  constructor(private readonly options: ProviderSettingsOptions) {
    this.store = new SettingsStore(options.home);
  }

  /** The provider to use now, or null when none is configured. */
  async config(): Promise<ProviderConfig | null> {
    return resolveProviderConfig(await this.store.provider(), this.options.secrets, this.options.overrides);
  }

  readonly commands: Pick<CommandHandlers, 'getSettings' | 'setSettings' | 'listModels'> = {
    getSettings: async () => this.publicSettings(),
    setSettings: async ({ provider }) => {
      const stored = { kind: provider.kind, baseUrl: trimBaseUrl(provider.baseUrl), model: provider.model } as Record<string, unknown>;
      if (provider.imageInput !== undefined) stored.imageInput = provider.imageInput;
      if (provider.contextWindow !== undefined) stored.contextWindow = provider.contextWindow;
      await this.store.update('provider', stored);
      if (provider.apiKey !== undefined) await this.options.secrets.set(secretKeyFor({ kind: provider.kind, baseUrl: stored.baseUrl as string }), provider.apiKey.trim());
      const settings = await this.publicSettings();
      this.options.emit({ type: 'settings.updated', settings });
      return settings;
    },
    listModels: async ({ provider }) => {
      const config = provider ? await this.configFromInput(provider) : await this.config();
      if (!config) throw new CommandError('not_configured', 'No model is configured yet.');
      try {
        return { models: await createProvider(config, this.options.fetch).listModels(AbortSignal.timeout(15_000)) };
      } catch (error) {
        if (error instanceof ProviderError) throw new CommandError(error.code, error.message);
        throw error;
      }
    },
  };

  private async configFromInput(input: ProviderSettingsInput): Promise<ProviderConfig> {
    const saved = { kind: input.kind, baseUrl: trimBaseUrl(input.baseUrl), model: input.model };
    const config = (await resolveProviderConfig(saved, this.options.secrets))!;
    if (input.apiKey) return { ...config, apiKey: input.apiKey, apiKeySource: 'stored' };
    return config;
  }

  private async publicSettings(): Promise<PublicSettings> {
    const config = await this.config();
    return { provider: config ? publicProvider(config) : null, secretStorage: this.options.secrets.kind };
  }
}
