import { z } from 'zod';

/** Which wire protocol a provider speaks. */
export const ProviderKind = z.enum(['openai', 'anthropic']);
export type ProviderKind = z.infer<typeof ProviderKind>;

/** Provider settings as the user enters them; `apiKey` omitted keeps the stored key, '' clears it. */
export const ProviderSettingsInput = z.object({
  kind: ProviderKind,
  baseUrl: z.string().trim().url({ message: 'Base URL must be a full URL, e.g. https://api.moonshot.ai/v1' }),
  model: z.string().trim().min(1, 'Model name is required'),
  apiKey: z.string().optional(),
  imageInput: z.boolean().optional(),
  contextWindow: z.number().int().positive().optional(),
});
export type ProviderSettingsInput = z.infer<typeof ProviderSettingsInput>;

/** A provider to probe (list models, test the connection) before it is saved: the model may still be empty. */
export const ProviderProbeInput = ProviderSettingsInput.extend({ model: z.string().trim().max(300).default('') });
export type ProviderProbeInput = z.input<typeof ProviderProbeInput>;

/** A tiny request that worked: which model answered, how fast, and the first words of its reply. */
export const ConnectionTest = z.object({ model: z.string(), latencyMs: z.number(), reply: z.string() });
export type ConnectionTest = z.infer<typeof ConnectionTest>;

/** Provider settings as the UI sees them: the key itself never leaves the core. */
export const PublicProviderSettings = z.object({
  kind: ProviderKind,
  baseUrl: z.string(),
  model: z.string(),
  hasApiKey: z.boolean(),
  apiKeySource: z.enum(['stored', 'env', 'none']),
  imageInput: z.boolean(),
  contextWindow: z.number().int().optional(),
});
export type PublicProviderSettings = z.infer<typeof PublicProviderSettings>;

/** Everything the settings dialog shows. */
export const PublicSettings = z.object({
  provider: PublicProviderSettings.nullable(),
  /** Where the API key is kept: an OS keychain (Electron safeStorage) or a 0600 file. */
  secretStorage: z.enum(['safe-storage', 'file']),
});
export type PublicSettings = z.infer<typeof PublicSettings>;
