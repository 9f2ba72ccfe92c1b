/** Known OpenAI-compatible endpoints, to fill the form in one click. */
export const PROVIDER_PRESETS = [
  { id: 'moonshot', label: 'Kimi (Moonshot)', baseUrl: 'https://api.moonshot.ai/v1', model: 'kimi-k2-0905-preview', needsKey: true },
  { id: 'openai', label: 'OpenAI', baseUrl: 'https://api.openai.com/v1', model: 'gpt-4.1', needsKey: true },
  { id: 'deepseek', label: 'DeepSeek', baseUrl: 'https://api.deepseek.com/v1', model: 'deepseek-chat', needsKey: true },
  { id: 'openrouter', label: 'OpenRouter', baseUrl: 'https://openrouter.ai/api/v1', model: 'moonshotai/kimi-k2', needsKey: true },
  { id: 'ollama', label: 'Ollama (local)', baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen3-coder', needsKey: false },
  { id: 'llamacpp', label: 'llama.cpp / vLLM (local)', baseUrl: 'http://127.0.0.1:8080/v1', model: 'local', needsKey: false },
] as const;
