import type { ModelInfo } from '#contract/model';

const asStrings = (value: unknown): string[] | undefined => (Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined);

/**
 * One entry of a `/models` list. Servers say what a model reads in different places: `input_modalities`
 * (OpenAI-style catalogues), `architecture.input_modalities` (OpenRouter), `modalities.input`,
 * `supports_image_in` (Moonshot/Kimi), `capabilities` as a list (`"vision"`, Ollama) or an object
 * (`{ vision: true }`, `{ image_input: … }`).
 */
export function modelInfoFrom(entry: unknown): ModelInfo | null {
  if (!entry || typeof entry !== 'object') return null;
  const e = entry as Record<string, unknown>;
  const id = typeof e.id === 'string' ? e.id : typeof e.name === 'string' ? e.name : '';
  if (!id) return null;
  const nested = (key: string, inner: string) => (e[key] && typeof e[key] === 'object' ? (e[key] as Record<string, unknown>)[inner] : undefined);
  const modalities = asStrings(e.input_modalities) ?? asStrings(nested('architecture', 'input_modalities')) ?? asStrings(nested('modalities', 'input'));
  let imageInput: boolean | undefined = modalities ? modalities.includes('image') : undefined;
  if (imageInput === undefined && typeof e.supports_image_in === 'boolean') imageInput = e.supports_image_in;
  if (imageInput === undefined) {
    const capabilities = e.capabilities;
    const list = asStrings(capabilities);
    if (list) imageInput = list.includes('vision') || list.includes('image_input');
    else if (capabilities && typeof capabilities === 'object') {
      const c = capabilities as Record<string, unknown>;
      const flag = c.vision ?? c.image_input ?? c.imageInput;
      if (typeof flag === 'boolean') imageInput = flag;
      else if (flag && typeof flag === 'object' && typeof (flag as { supported?: unknown }).supported === 'boolean')
        imageInput = (flag as { supported: boolean }).supported;
    }
  }
  return imageInput === undefined ? { id } : { id, imageInput };
}

/** The entries of a `/models` answer (`data` or `models`). */
export function modelInfosFrom(list: unknown): ModelInfo[] {
  if (!list || typeof list !== 'object') return [];
  const l = list as { data?: unknown; models?: unknown };
  const entries = Array.isArray(l.data) ? l.data : Array.isArray(l.models) ? l.models : [];
  return entries.map(modelInfoFrom).filter((m): m is ModelInfo => m !== null);
}
