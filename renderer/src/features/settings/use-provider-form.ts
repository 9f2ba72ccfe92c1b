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

/**
 * What a failed call says, for this form: a rejected key is fixed in the field above, not in Settings (the
 * first run has none, and in Settings the form is already open).
 */
export function formDetail(e: unknown): string {
  const error = DeftError.from(e);
  if (error.code !== 'provider_auth') return error.detail;
  const here = 'Check the API key above.';
  return error.detail.includes('Open Settings and check the API key.')
    ? error.detail.replace('Open Settings and check the API key.', here)
    : `${error.detail} ${here}`;
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
  /** Save tested the connection first and it failed: Save anyway is offered. */
  const [unverified, setUnverified] = useState(false);

  const update = (patch: Partial<ProviderDraft>) => {
    setDraft((d) => ({ ...d, ...patch }));
    // A result says something about the values it was made with, not the new ones.
    if (patch.baseUrl !== undefined || patch.kind !== undefined || patch.apiKey !== undefined) setModels(null);
    // So does a message about them: what it complained of may be fixed now.
    setConnection(null);
    setError(null);
    setUnverified(false);
  };

  /** The draft's own problem, set as the form's error; false when there is none. */
  function invalid(): boolean {
    if (!draft.baseUrl.trim() || !draft.model.trim()) setError('Enter a base URL and a model name.');
    else if (parseContextWindow(draft.contextWindow) === 'invalid')
      setError('The context window is a whole number of tokens, at least 1000 (e.g. 200000), or empty for the default.');
    else return false;
    return true;
  }

  async function save(): Promise<boolean> {
    setError(null);
    setUnverified(false);
    if (invalid()) return false;
    setSaving(true);
    try {
      // An empty key field keeps the stored key.
      await saveProvider(toInput(draft, draft.apiKey.trim() !== ''));
      return true;
    } catch (e) {
      setError(formDetail(e));
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
      setError(formDetail(e));
    } finally {
      setLoadingModels(false);
    }
  }

  /** Send a tiny request with the draft; true when the model answered. */
  async function test(): Promise<boolean> {
    setError(null);
    setConnection(null);
    setUnverified(false);
    if (invalid()) return false;
    setTesting(true);
    try {
      const result = await testConnection(toInput(draft, draft.apiKey.trim() !== ''));
      const said = result.reply ? ` and replied “${result.reply.slice(0, 60)}”` : '';
      setConnection({ ok: true, text: `Connected: ${result.model} answered in ${result.latencyMs.toLocaleString('en-US')} ms${said}.` });
      return true;
    } catch (e) {
      setConnection({ ok: false, text: formDetail(e) });
      return false;
    } finally {
      setTesting(false);
    }
  }

  /** Test, then save what answered; a failed test offers Save anyway (`save`). */
  async function testAndSave(): Promise<boolean> {
    if (!(await test())) {
      setUnverified(true);
      return false;
    }
    return save();
  }

  return {
    draft,
    update,
    save,
    testAndSave,
    unverified,
    saving,
    error,
    models,
    loadModels,
    loadingModels,
    hideModels: () => setModels(null),
    test,
    testing,
    connection,
  };
}
