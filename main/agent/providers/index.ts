import type { ProviderConfig } from '../settings/provider-config';
import { ProviderError } from './errors';
import { OpenAICompatibleProvider } from './openai-compatible';
import type { ChatProvider } from './types';

/** Build the provider a config describes. */
export function createProvider(config: ProviderConfig, fetchImpl?: typeof fetch): ChatProvider {
  switch (config.kind) {
    case 'openai':
      return new OpenAICompatibleProvider({
        baseUrl: config.baseUrl,
        model: config.model,
        imageInput: config.imageInput,
        ...(config.apiKey ? { apiKey: config.apiKey } : {}),
        ...(fetchImpl ? { fetch: fetchImpl } : {}),
      });
    case 'anthropic':
      throw new ProviderError(
        'unsupported',
        'The Anthropic Messages provider is not available yet. Use an OpenAI-compatible endpoint (Settings → Provider: OpenAI-compatible).',
        { retryable: false },
      );
  }
}
