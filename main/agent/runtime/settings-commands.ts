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

/** How long a turn waits for the server's model list the first time (then it goes by the setting). */
const MODEL_LIST_TIMEOUT_MS = 5_000;

/** The model provider a core talks to: resolved from settings, the secret store and overrides; and the settings commands. */
export class ProviderSettings {
  private readonly store: SettingsStore;
  /** What each endpoint's model list says a model reads (asked once per process; undefined: it does not say). */
  private readonly declared = new Map<string, Promise<boolean | undefined>>();

  constructor(private readonly options: ProviderSettingsOptions) {
    this.store = new SettingsStore(options.home);
  }

  /** The provider to use now, or null when none is configured. */
  async config(): Promise<ProviderConfig | null> {
    return resolveProviderConfig(await this.store.provider(), this.options.secrets, this.options.overrides);
  }

  /**
   * The provider a turn uses: as configured, except that where the server's model list says whether the
   * model reads images, that wins over the setting (a model sent an image it cannot read fails the request).
   */
  async turnConfig(): Promise<ProviderConfig | null> {
    const config = await this.config();
    if (!config) return null;
    const declared = await this.declaredImageInput(config);
    return declared === undefined || declared === config.imageInput ? config : { ...config, imageInput: declared };
  }

  private declaredImageInput(config: ProviderConfig): Promise<boolean | undefined> {
    const key = JSON.stringify([config.kind, config.baseUrl, config.model, Boolean(config.apiKey)]);
    let known = this.declared.get(key);
    if (!known) {
      known = createProvider(config, this.options.fetch)
        .listModelInfo(AbortSignal.timeout(MODEL_LIST_TIMEOUT_MS))
        .then((models) => models.find((m) => m.id === config.model)?.imageInput)
        .catch(() => undefined);
      this.declared.set(key, known);
    }
    return known;
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
