import type { ProviderKind } from '#protocol';

export interface ProviderPreset {
  id: string;
  label: string;
  kind: ProviderKind;
  baseUrl: string;
  /** A model the endpoint serves, as an example (the user may pick another). */
  model: string;
  /** A server on this machine: no API key needed. */
  local?: boolean;
}

/** Known endpoints, to fill the form in one click. */
export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  { id: 'moonshot', label: 'Kimi (Moonshot)', kind: 'openai', baseUrl: 'https://api.moonshot.ai/v1', model: 'kimi-k2-0905-preview' },
  { id: 'openai', label: 'OpenAI', kind: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4.1' },
  { id: 'anthropic', label: 'Anthropic', kind: 'anthropic', baseUrl: 'https://api.anthropic.com/v1', model: 'claude-sonnet-4-5' },
  { id: 'deepseek', label: 'DeepSeek', kind: 'openai', baseUrl: 'https://api.deepseek.com/v1', model: 'deepseek-chat' },
  { id: 'openrouter', label: 'OpenRouter', kind: 'openai', baseUrl: 'https://openrouter.ai/api/v1', model: 'moonshotai/kimi-k2' },
  { id: 'ollama', label: 'Ollama (local)', kind: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen3-coder', local: true },
  { id: 'llamacpp', label: 'llama.cpp / vLLM (local)', kind: 'openai', baseUrl: 'http://127.0.0.1:8080/v1', model: 'local', local: true },
];

/** The preset whose endpoint the form holds, if any. */
export function presetOf(draft: { kind: ProviderKind; baseUrl: string }): ProviderPreset | undefined {
  const url = draft.baseUrl.trim().replace(/\/+$/, '');
  return PROVIDER_PRESETS.find((p) => p.baseUrl === url && p.kind === draft.kind);
}

export const PROVIDER_KINDS: ReadonlyArray<{ kind: ProviderKind; label: string; note: string }> = [
  { kind: 'openai', label: 'OpenAI-compatible', note: 'Chat Completions: Kimi, OpenAI, DeepSeek, OpenRouter, Ollama, vLLM, llama.cpp…' },
  { kind: 'anthropic', label: 'Anthropic', note: 'Messages API: Claude models.' },
];
