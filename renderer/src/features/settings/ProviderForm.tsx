import { useId } from 'react';
import type { ProviderKind, PublicSettings } from '../../../../protocol';
import { PROVIDER_KINDS, PROVIDER_PRESETS } from './presets';
import { DEFAULT_CONTEXT_WINDOW, type useProviderForm } from './use-provider-form';

type Form = ReturnType<typeof useProviderForm>;

/** Base URL, model, API key and image support for an OpenAI-compatible endpoint, with presets. */
export function ProviderForm({ form, current }: { form: Form; current: PublicSettings['provider'] }) {
  const ids = { base: useId(), model: useId(), key: useId(), list: useId(), image: useId(), kind: useId(), window: useId() };
  const { draft, update } = form;
  const keyHint =
    current?.apiKeySource === 'env'
      ? 'Using DEFT_API_KEY from the environment.'
      : current?.hasApiKey && current.baseUrl === draft.baseUrl.trim()
        ? 'A key is saved for this endpoint. Leave empty to keep it.'
        : 'Not needed for local servers such as Ollama.';
  return (
    <div className="provider-form">
      <div className="presets" role="group" aria-label="Provider presets">
        {PROVIDER_PRESETS.map((preset) => (
          <button
            key={preset.id}
            type="button"
            className={`chip${draft.baseUrl === preset.baseUrl ? ' chip-active' : ''}`}
            aria-pressed={draft.baseUrl === preset.baseUrl}
            onClick={() => update({ kind: preset.kind, baseUrl: preset.baseUrl, model: preset.model })}
          >
            {preset.label}
          </button>
        ))}
      </div>
      <label htmlFor={ids.kind}>Protocol</label>
      <select id={ids.kind} value={draft.kind} onChange={(e) => update({ kind: e.target.value as ProviderKind })}>
        {PROVIDER_KINDS.map((k) => (
          <option key={k.kind} value={k.kind}>
            {k.label}
          </option>
        ))}
      </select>
      <p className="form-note">{PROVIDER_KINDS.find((k) => k.kind === draft.kind)?.note}</p>
      <label htmlFor={ids.base}>Base URL</label>
      <input id={ids.base} type="url" placeholder="https://api.moonshot.ai/v1" value={draft.baseUrl} spellCheck={false} onChange={(e) => update({ baseUrl: e.target.value })} />
      <label htmlFor={ids.model}>Model</label>
      <div className="input-row">
        <input id={ids.model} list={ids.list} placeholder="kimi-k2-0905-preview" value={draft.model} spellCheck={false} onChange={(e) => update({ model: e.target.value })} />
        <button type="button" className="button" onClick={() => void form.loadModels()} disabled={form.loadingModels || !draft.baseUrl.trim()}>
          {form.loadingModels ? 'Loading…' : 'Fetch models'}
        </button>
      </div>
      <datalist id={ids.list}>
        {form.models.map((m) => (
          <option key={m} value={m} />
        ))}
      </datalist>
      <label htmlFor={ids.key}>API key</label>
      <input id={ids.key} type="password" autoComplete="off" placeholder={current?.hasApiKey ? '•••••••• (saved)' : 'sk-…'} value={draft.apiKey} onChange={(e) => update({ apiKey: e.target.value })} />
      <p className="form-note">{keyHint}</p>
      <label className="checkbox" htmlFor={ids.image}>
        <input id={ids.image} type="checkbox" checked={draft.imageInput} onChange={(e) => update({ imageInput: e.target.checked })} />
        This model accepts images
      </label>
      <label htmlFor={ids.window}>Context window (tokens)</label>
      <input
        id={ids.window}
        inputMode="numeric"
        placeholder={`${DEFAULT_CONTEXT_WINDOW.toLocaleString('en-US')} (default)`}
        value={draft.contextWindow}
        spellCheck={false}
        onChange={(e) => update({ contextWindow: e.target.value })}
      />
      <p className="form-note">Deft compacts the conversation when it fills 85% of this. Leave empty for {DEFAULT_CONTEXT_WINDOW.toLocaleString('en-US')}.</p>
      {form.error ? (
        <p className="form-error" role="alert">
          {form.error}
        </p>
      ) : null}
    </div>
  );
}
