import type { Effort, EffortSetting, ProviderKind, PublicProviderSettings } from '#protocol';
import type { SecretStore } from './secrets';
import { type StoredProvider, secretKeyFor } from './settings-store';

/** Everything needed to build a provider, with where the key came from. */
export interface ProviderConfig {
  kind: ProviderKind;
  baseUrl: string;
  model: string;
  apiKey?: string;
  apiKeySource: 'stored' | 'env' | 'none';
  imageInput: boolean;
  contextWindow?: number;
  /** How hard the model should think (absent: nothing is asked; the model's default). */
  effort?: Effort;
}

/** Values from the command line or the environment; each wins over the saved settings when set. */
export interface ProviderOverrides {
  kind?: string;
  baseUrl?: string;
  model?: string;
  apiKey?: string;
  /** The effort for this run (`deft run --effort`), over the settings' default. */
  effort?: EffortSetting;
}

export function overridesFromEnv(env: Record<string, string | undefined>): ProviderOverrides {
  const pick = (name: string) => (env[name]?.trim() ? env[name].trim() : undefined);
  const overrides: ProviderOverrides = {};
  const kind = pick('DEFT_PROVIDER');
  const baseUrl = pick('DEFT_BASE_URL');
  const model = pick('DEFT_MODEL');
  const apiKey = pick('DEFT_API_KEY');
  if (kind) overrides.kind = kind;
  if (baseUrl) overrides.baseUrl = baseUrl;
  if (model) overrides.model = model;
  if (apiKey) overrides.apiKey = apiKey;
  return overrides;
}

/**
 * Merge saved settings with overrides. `overrides` win field by field (the CLI contract: flags, then
 * DEFT_* variables, then saved settings). Returns null when no base URL or model is known.
 */
export async function resolveProviderConfig(
  saved: StoredProvider | null,
  secrets: SecretStore,
  overrides: ProviderOverrides = {},
): Promise<ProviderConfig | null> {
  const kind = (overrides.kind ?? saved?.kind ?? 'openai') as ProviderKind;
  const baseUrl = overrides.baseUrl ?? saved?.baseUrl;
  const model = overrides.model ?? saved?.model;
  if (!baseUrl || !model) return null;
  let apiKey = overrides.apiKey;
  let apiKeySource: ProviderConfig['apiKeySource'] = apiKey ? 'env' : 'none';
  if (!apiKey) {
    apiKey = await secrets.get(secretKeyFor({ kind, baseUrl }));
    if (apiKey) apiKeySource = 'stored';
  }
  const config: ProviderConfig = { kind, baseUrl, model, apiKeySource, imageInput: saved?.imageInput ?? false };
  if (apiKey) config.apiKey = apiKey;
  if (saved?.contextWindow) config.contextWindow = saved.contextWindow;
  return config;
}

export function publicProvider(config: ProviderConfig): PublicProviderSettings {
  const view: PublicProviderSettings = {
    kind: config.kind,
    baseUrl: config.baseUrl,
    model: config.model,
    hasApiKey: Boolean(config.apiKey),
    apiKeySource: config.apiKeySource,
    imageInput: config.imageInput,
  };
  if (config.contextWindow) view.contextWindow = config.contextWindow;
  return view;
}
