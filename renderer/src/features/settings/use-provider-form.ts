import { useState } from 'react';
import { DeftError } from '#protocol/helpers/bridge';
import type { ProviderKind, ProviderSettingsInput, PublicSettings } from '#protocol';
import { listModels, saveProvider, testConnection } from '../../actions/settings';

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

/** What the last connection test said: which model answered and how fast, or exactly what failed. */
export type ConnectionResult = { ok: true; text: string } | { ok: false; text: string };

/** State and commands behind the provider form: save, fetch the model list, test the connection. */
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
  const [models, setModels] = useState<string[] | null>(null);
  const [loadingModels, setLoadingModels] = useState(false);
  const [testing, setTesting] = useState(false);
  const [connection, setConnection] = useState<ConnectionResult | null>(null);

  const update = (patch: Partial<ProviderDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    // A result says something about the values it was made with, not the new ones.
    if (patch.baseUrl !== undefined || patch.kind !== undefined || patch.apiKey !== undefined) setModels(null);
    setConnection(null);
  };

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
    if (!draft.baseUrl.trim()) {
      setError('Enter the base URL first: the model list comes from that server.');
      return;
    }
    setLoadingModels(true);
    try {
      const found = await listModels(toInput(draft, draft.apiKey.trim() !== ''));
      setModels(found);
      if (!found.length) setError('The server returned no models. Type the model name.');
    } catch (e) {
      setModels(null);
      setError(DeftError.from(e).detail);
    } finally {
      setLoadingModels(false);
    }
  }

  async function test(): Promise<void> {
    setError(null);
    setConnection(null);
    if (!draft.baseUrl.trim() || !draft.model.trim()) {
      setConnection({ ok: false, text: 'Enter a base URL and a model name to test.' });
      return;
    }
    setTesting(true);
    try {
      const result = await testConnection(toInput(draft, draft.apiKey.trim() !== ''));
      const said = result.reply ? ` and replied “${result.reply.slice(0, 60)}”` : '';
      setConnection({ ok: true, text: `Connected: ${result.model} answered in ${result.latencyMs.toLocaleString('en-US')} ms${said}.` });
    } catch (e) {
      setConnection({ ok: false, text: DeftError.from(e).detail });
    } finally {
      setTesting(false);
    }
  }

  return { draft, update, save, saving, error, models, loadModels, loadingModels, hideModels: () => setModels(null), test, testing, connection };
}
