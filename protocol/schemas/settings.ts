import { z } from 'zod';
import { builtOnce } from '../helpers/built-once';

/** Which wire protocol a provider speaks (built at load: every run reads the stored provider). */
export const ProviderKind = z.enum(['openai', 'anthropic']);
export type ProviderKind = z.infer<typeof ProviderKind>;

/**
 * The settings commands' and events' schemas, built on first use (settingsSchemas): a run that validates no command
 * or event (the CLI's text turn) never builds them.
 */
const buildSettingsSchemas = () => {
  /** Provider settings as the user enters them; `apiKey` omitted keeps the stored key, '' clears it. */
  const ProviderSettingsInput = z.object({
    kind: ProviderKind,
    baseUrl: z.string().trim().url({ message: 'Base URL must be a full URL, e.g. https://api.moonshot.ai/v1' }),
    model: z.string().trim().min(1, 'Model name is required'),
    apiKey: z.string().optional(),
    imageInput: z.boolean().optional(),
    contextWindow: z.number().int().positive().optional(),
  });

  /** A provider to probe (list models, test the connection) before it is saved: the model may still be empty. */
  const ProviderProbeInput = ProviderSettingsInput.extend({ model: z.string().trim().max(300).default('') });

  /** A tiny request that worked: which model answered, how fast, and the first words of its reply. */
  const ConnectionTest = z.object({ model: z.string(), latencyMs: z.number(), reply: z.string() });

  /** Provider settings as the UI sees them: the key itself never leaves the core. */
  const PublicProviderSettings = z.object({
    kind: ProviderKind,
    baseUrl: z.string(),
    model: z.string(),
    hasApiKey: z.boolean(),
    apiKeySource: z.enum(['stored', 'env', 'none']),
    imageInput: z.boolean(),
    contextWindow: z.number().int().optional(),
  });

  /** Everything the settings dialog shows. */
  const PublicSettings = z.object({
    provider: PublicProviderSettings.nullable(),
    /** Where the API key is kept: an OS keychain (Electron safeStorage) or a 0600 file. */
    secretStorage: z.enum(['safe-storage', 'file']),
  });

  return { ProviderSettingsInput, ProviderProbeInput, ConnectionTest, PublicProviderSettings, PublicSettings };
};

export type SettingsSchemas = ReturnType<typeof buildSettingsSchemas>;
export const settingsSchemas: () => SettingsSchemas = builtOnce(buildSettingsSchemas);

export type ProviderSettingsInput = z.infer<SettingsSchemas['ProviderSettingsInput']>;
export type ProviderProbeInput = z.input<SettingsSchemas['ProviderProbeInput']>;
export type ConnectionTest = z.infer<SettingsSchemas['ConnectionTest']>;
export type PublicProviderSettings = z.infer<SettingsSchemas['PublicProviderSettings']>;
export type PublicSettings = z.infer<SettingsSchemas['PublicSettings']>;
