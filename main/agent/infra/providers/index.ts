import type { ProviderFetch } from './node-fetch';
import type { ProviderConfig } from '../settings/provider-config';
import { AnthropicProvider } from './anthropic';
import { OpenAICompatibleProvider } from './openai-compatible';
import type { ChatProvider } from '#contract/model';

/** Build the provider a config describes. */
export function createProvider(config: ProviderConfig, fetchImpl?: ProviderFetch): ChatProvider {
  switch (config.kind) {
    case 'openai':
      return new OpenAICompatibleProvider({
        baseUrl: config.baseUrl,
        model: config.model,
        imageInput: config.imageInput,
        ...(config.apiKey ? { apiKey: config.apiKey } : {}),
        ...(config.effort ? { effort: config.effort } : {}),
        ...(fetchImpl ? { fetch: fetchImpl } : {}),
      });
    case 'anthropic':
      return new AnthropicProvider({
        baseUrl: config.baseUrl,
        model: config.model,
        imageInput: config.imageInput,
        ...(config.apiKey ? { apiKey: config.apiKey } : {}),
        ...(config.effort ? { effort: config.effort } : {}),
        ...(fetchImpl ? { fetch: fetchImpl } : {}),
      });
  }
}
