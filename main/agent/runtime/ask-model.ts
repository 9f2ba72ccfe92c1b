import { createProvider } from '#infra/providers/index';
import type { ProviderConfig } from '#infra/settings/provider-config';

export interface AskRequest {
  system: string;
  prompt: string;
  maxOutputTokens: number;
  signal: AbortSignal;
}

/**
 * One short request to the configured model outside any session (no tools, nothing saved): its reply's text. For
 * small drafting jobs (a merge's commit message). Throws when no model is configured or the request fails.
 */
export async function askModel(config: () => Promise<ProviderConfig | null>, request: AskRequest, fetchImpl?: typeof fetch): Promise<string> {
  const chosen = await config();
  if (!chosen) throw new Error('no model is configured');
  const provider = createProvider(chosen, fetchImpl);
  const result = await provider.step(
    {
      system: request.system,
      messages: [{ role: 'user', content: request.prompt }],
      tools: [],
      signal: request.signal,
      // OpenAI's reasoning models refuse max_tokens (as in the connection test); Anthropic requires it.
      ...(chosen.kind === 'anthropic' ? { maxOutputTokens: request.maxOutputTokens } : {}),
    },
    { onText: () => {}, onThinking: () => {} },
  );
  return result.text;
}
