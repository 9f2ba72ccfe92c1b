import type { AppEvent, ConnectionTest, EffortSetting, ProviderSettingsInput, PublicSettings } from '#protocol';
import type { CommandHandlers } from '#contract/commands';
import { CommandError } from '#contract/errors';
import { trimBaseUrl } from '#infra/providers/base-url';
import { ProviderError } from '#infra/providers/errors';
import { createProvider } from '#infra/providers/index';
import { type ModelInfoCache, modelInfoCache } from '#infra/providers/model-info-cache';
import { type ProviderConfig, type ProviderOverrides, publicProvider, resolveProviderConfig } from '#infra/settings/provider-config';
import type { SecretStore } from '#infra/settings/secrets';
import { SettingsStore, secretKeyFor } from '#infra/settings/settings-store';
import { effortFor } from '#infra/settings/effort-settings';

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
  /** The same answers across processes, for a day (a one-shot run then asks nothing). */
  private readonly cache: ModelInfoCache;

  constructor(private readonly options: ProviderSettingsOptions) {
    this.store = new SettingsStore(options.home);
    this.cache = modelInfoCache(options.home);
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

  /** The effort a turn with `model` asks for unless its session chose one: the run's (`deft run --effort`), else the settings'. */
  async defaultEffort(model: string): Promise<EffortSetting | undefined> {
    return this.options.overrides?.effort ?? effortFor(await this.store.readRaw(), model);
  }

  private declaredImageInput(config: ProviderConfig): Promise<boolean | undefined> {
    const key = JSON.stringify([config.kind, config.baseUrl, config.model, Boolean(config.apiKey)]);
    let known = this.declared.get(key);
    if (!known) {
      const cacheKey = { kind: config.kind, baseUrl: config.baseUrl, model: config.model, hasKey: Boolean(config.apiKey) };
      known = this.cache.get(cacheKey).then((cached) =>
        cached
          ? cached.imageInput
          : createProvider(config, this.options.fetch)
              .listModelInfo(AbortSignal.timeout(MODEL_LIST_TIMEOUT_MS))
              .then(async (models) => {
                const imageInput = models.find((m) => m.id === config.model)?.imageInput;
                await this.cache.set(cacheKey, imageInput);
                return imageInput;
              })
              .catch(() => undefined),
      );
      this.declared.set(key, known);
    }
    return known;
  }

  readonly commands: Pick<CommandHandlers, 'getSettings' | 'setSettings' | 'listModels' | 'testConnection'> = {
    getSettings: async () => this.publicSettings(),
    setSettings: async ({ provider }) => {
      const stored = { kind: provider.kind, baseUrl: trimBaseUrl(provider.baseUrl), model: provider.model } as Record<string, unknown>;
      if (provider.imageInput !== undefined) stored.imageInput = provider.imageInput;
      if (provider.contextWindow !== undefined) stored.contextWindow = provider.contextWindow;
      await this.store.update('provider', stored);
      if (provider.apiKey !== undefined)
        await this.options.secrets.set(secretKeyFor({ kind: provider.kind, baseUrl: stored.baseUrl as string }), provider.apiKey.trim());
      const settings = await this.publicSettings();
      this.options.emit({ type: 'settings.updated', settings });
      return settings;
    },
    listModels: async ({ provider }) => {
      const config = provider ? await this.configFromInput(provider) : await this.config();
      if (!config) throw new CommandError('not_configured', 'No model is configured yet.');
      return { models: await asCommandError(createProvider(config, this.options.fetch).listModels(AbortSignal.timeout(15_000))) };
    },
    testConnection: async ({ provider }) => testConnection(await this.configFromInput(provider), this.options.fetch),
  };

  private async configFromInput(input: Omit<ProviderSettingsInput, 'model'> & { model: string }): Promise<ProviderConfig> {
    // Listing models needs no model name; resolveProviderConfig wants one, so it gets a stand-in.
    const saved = { kind: input.kind, baseUrl: trimBaseUrl(input.baseUrl), model: input.model || '-' };
    const config = { ...(await resolveProviderConfig(saved, this.options.secrets))!, model: input.model };
    if (input.apiKey) return { ...config, apiKey: input.apiKey, apiKeySource: 'stored' };
    return config;
  }

  private async publicSettings(): Promise<PublicSettings> {
    const config = await this.config();
    return { provider: config ? publicProvider(config) : null, secretStorage: this.options.secrets.kind };
  }
}

async function asCommandError<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ProviderError) throw new CommandError(error.code, error.message);
    if ((error as Error)?.name === 'TimeoutError')
      throw new CommandError('provider_timeout', 'The server did not answer within 15 seconds. Check the base URL and that the server is running.');
    throw error;
  }
}

const TEST_TIMEOUT_MS = 30_000;

/**
 * One tiny request ("reply with OK") to the provider, not saved anywhere. It is stopped as soon as the
 * first words stream back: that the server, the key and the model name work is all it needs to know.
 */
export async function testConnection(config: ProviderConfig, fetchImpl?: typeof fetch): Promise<ConnectionTest> {
  const provider = createProvider(config, fetchImpl);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('timed out', 'TimeoutError')), TEST_TIMEOUT_MS);
  const started = performance.now();
  let reply = '';
  let answered = false;
  const first = () => {
    answered = true;
    // Enough to prove it works; the rest of the answer is not worth the wait or the tokens.
    if (reply.length >= 40) controller.abort();
  };
  try {
    const result = await provider.step(
      {
        system: 'This is a connection test. Reply with the single word OK.',
        messages: [{ role: 'user', content: 'OK?' }],
        tools: [],
        signal: controller.signal,
        // OpenAI's reasoning models refuse max_tokens; Anthropic requires it.
        ...(config.kind === 'anthropic' ? { maxOutputTokens: 16 } : {}),
      },
      {
        onText: (text) => {
          reply += text;
          first();
        },
        onThinking: () => first(),
      },
    );
    reply ||= result.text;
  } catch (error) {
    if (!answered) {
      if (controller.signal.aborted) throw new CommandError('provider_timeout', `${config.baseUrl} did not answer within ${TEST_TIMEOUT_MS / 1000} seconds.`);
      if (error instanceof ProviderError) throw new CommandError(error.code, error.message);
      throw new CommandError('provider_unreachable', `The request to ${config.baseUrl} failed: ${(error as Error)?.message ?? String(error)}`);
    }
  } finally {
    clearTimeout(timer);
  }
  return { model: config.model, latencyMs: Math.round(performance.now() - started), reply: reply.trim().slice(0, 200) };
}
