import { useState } from 'react';
import { DeftError } from '../../../../protocol/bridge';
import type { ProviderKind, ProviderSettingsInput, PublicSettings } from '../../../../protocol';
import { listModels, saveProvider } from '../../actions/settings';

export interface ProviderDraft {
  kind: ProviderKind;
  baseUrl: string;
  model: string;
  apiKey: string;
  imageInput: boolean;
  /** Tokens, as typed; empty means the default (DEFAULT_CONTEXT_WINDOW). */
  contextWindow: string;
}

/** The default Deft assumes when no context window is set (the agent core uses the same figure). */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** The typed context window: a whole number of tokens, or empty for the default. */
export function parseContextWindow(text: string): number | undefined | 'invalid' {
  const clean = text.trim().replace(/[_,\s]/g, '');
  if (!clean) return undefined;
  const value = /^\d+$/.test(clean) ? Number(clean) : NaN;
  return Number.isSafeInteger(value) && value >= 1_000 ? value : 'invalid';
}

function toInput(draft: ProviderDraft, includeKey: boolean): ProviderSettingsInput {
  const contextWindow = parseContextWindow(draft.contextWindow);
  return {
    kind: draft.kind,
    baseUrl: draft.baseUrl.trim(),
    model: draft.model.trim(),
    imageInput: draft.imageInput,
    ...(typeof contextWindow === 'number' ? { contextWindow } : {}),
    ...(includeKey ? { apiKey: draft.apiKey.trim() } : {}),
  };
}

/** State and commands behind the provider form: save, and fetch the model list. */
export function useProviderForm(current: PublicSettings['provider']) {
  const [draft, setDraft] = useState<ProviderDraft>({
    kind: current?.kind ?? 'openai',
    baseUrl: current?.baseUrl ?? '',
    model: current?.model ?? '',
    apiKey: '',
    imageInput: current?.imageInput ?? false,
    contextWindow: current?.contextWindow ? String(current.contextWindow) : '',
  });
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [models, setModels] = useState<string[]>([]);
  const [loadingModels, setLoadingModels] = useState(false);

  const update = (patch: Partial<ProviderDraft>) => setDraft((d) => ({ ...d, ...patch }));

  async function save(): Promise<boolean> {
    setError(null);
    if (!draft.baseUrl.trim() || !draft.model.trim()) {
      setError('Enter a base URL and a model name.');
      return false;
    }
    if (parseContextWindow(draft.contextWindow) === 'invalid') {
      setError('The context window is a whole number of tokens, at least 1000 (e.g. 200000), or empty for the default.');
      return false;
    }
    setSaving(true);
    try {
      // An empty key field keeps the stored key.
      await saveProvider(toInput(draft, draft.apiKey.trim() !== ''));
      return true;
    } catch (e) {
      setError(DeftError.from(e).detail);
      return false;
    } finally {
      setSaving(false);
    }
  }

  async function loadModels(): Promise<void> {
    setError(null);
    setLoadingModels(true);
    try {
      const models = await listModels(toInput(draft, draft.apiKey.trim() !== ''));
      setModels(models);
      if (!models.length) setError('The server returned no models. Type the model name.');
    } catch (e) {
      setError(DeftError.from(e).detail);
    } finally {
      setLoadingModels(false);
    }
  }

  return { draft, update, save, saving, error, models, loadModels, loadingModels };
}
