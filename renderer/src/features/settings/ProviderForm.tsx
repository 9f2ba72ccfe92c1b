import { useId } from 'react';
import type { ProviderKind, PublicSettings } from '#protocol';
import { Icon, Spinner } from '../../components/Icon';
import { ModelList } from './ModelList';
import { PROVIDER_KINDS, PROVIDER_PRESETS, presetOf } from './presets';
import { DEFAULT_CONTEXT_WINDOW, type useProviderForm } from './use-provider-form';
import './provider-form.css';

type Form = ReturnType<typeof useProviderForm>;

/**
 * Base URL, model and API key, with presets to start from; the protocol, image input and context window
 * wait under Advanced. Placeholders are examples, and say so. Fetch models lists the server's models
 * (no model name needed) in a list to pick from.
 */
export function ProviderForm({ form, current }: { form: Form; current: PublicSettings['provider'] }) {
  const ids = { base: useId(), model: useId(), key: useId(), image: useId(), kind: useId(), window: useId(), presets: useId(), keyNote: useId() };
  const { draft, update } = form;
  const chosen = presetOf(draft);
  const keyHint =
    current?.apiKeySource === 'env'
      ? 'Using DEFT_API_KEY from the environment.'
      : current?.hasApiKey && current.baseUrl === draft.baseUrl.trim()
        ? 'A key is saved for this endpoint. Leave empty to keep it.'
        : chosen?.local
          ? 'Not needed for a server on this machine.'
          : 'Needed by hosted APIs; not by local servers such as Ollama.';
  return (
    <div className="provider-form">
      <span className="field-label" id={ids.presets}>
        Start from a preset
      </span>
      <div className="presets" role="group" aria-labelledby={ids.presets}>
        {PROVIDER_PRESETS.map((preset) => (
          <button
            key={preset.id}
            type="button"
            className={`chip${chosen?.id === preset.id ? ' chip-active' : ''}`}
            aria-pressed={chosen?.id === preset.id}
            onClick={() => update({ kind: preset.kind, baseUrl: preset.baseUrl, model: preset.model })}
          >
            {preset.label}
          </button>
        ))}
      </div>
      <label htmlFor={ids.base}>Base URL</label>
      <input
        id={ids.base}
        type="url"
        placeholder="e.g. https://api.moonshot.ai/v1"
        value={draft.baseUrl}
        spellCheck={false}
        onChange={(e) => update({ baseUrl: e.target.value })}
      />
      <label htmlFor={ids.model}>Model</label>
      <div className="input-row">
        <input
          id={ids.model}
          placeholder={chosen ? `e.g. ${chosen.model}` : 'e.g. kimi-k2-0905-preview'}
          value={draft.model}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => update({ model: e.target.value })}
        />
        <button type="button" className="button" onClick={() => void form.loadModels()} disabled={form.loadingModels}>
          {form.loadingModels ? <Spinner size={12} /> : null} {form.loadingModels ? 'Fetching…' : 'Fetch models'}
        </button>
      </div>
      {form.models?.length ? (
        <ModelList
          models={form.models}
          filter={draft.model}
          selected={draft.model}
          onPick={(model) => {
            update({ model });
            form.hideModels();
          }}
          onClose={form.hideModels}
        />
      ) : null}
      <label htmlFor={ids.key}>API key</label>
      <input
        id={ids.key}
        type="password"
        autoComplete="off"
        placeholder={current?.hasApiKey ? '•••••••• (saved)' : 'e.g. sk-…'}
        value={draft.apiKey}
        aria-describedby={ids.keyNote}
        onChange={(e) => update({ apiKey: e.target.value })}
      />
      <p className="form-note" id={ids.keyNote}>
        {keyHint}
      </p>
      <details className="advanced">
        <summary>
          <Icon name="chevron" size={12} className="advanced-chevron" /> Advanced: protocol, images, context window
        </summary>
        <div className="advanced-body">
          <label htmlFor={ids.kind}>Protocol</label>
          <select id={ids.kind} value={draft.kind} onChange={(e) => update({ kind: e.target.value as ProviderKind })}>
            {PROVIDER_KINDS.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.label}
              </option>
            ))}
          </select>
          <p className="form-note">{PROVIDER_KINDS.find((k) => k.kind === draft.kind)?.note}</p>
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
          <p className="form-note">
            Deft compacts the conversation when it fills 85% of this. Leave empty for {DEFAULT_CONTEXT_WINDOW.toLocaleString('en-US')}.
          </p>
        </div>
      </details>
    </div>
  );
}

/**
 * What the form has to say, beside the buttons that made it say it: a test in progress, its result, or what is
 * wrong — every problem in one style, read out as an alert; a success or progress, politely.
 */
export function FormStatus({ form }: { form: Form }) {
  const problem = form.error ?? (form.connection && !form.connection.ok ? form.connection.text : null);
  return (
    <div className="connection-status">
      {form.testing ? (
        <span className="connection-pending" role="status">
          <Spinner size={12} /> Sending a tiny request…
        </span>
      ) : problem ? (
        <span className="connection-bad" role="alert">
          <Icon name="failed" size={14} /> {problem}
        </span>
      ) : form.connection ? (
        <span className="connection-ok" role="status">
          <Icon name="check" size={14} /> {form.connection.text}
        </span>
      ) : null}
    </div>
  );
}

/** The Test connection button, for the form's footer. */
export function TestConnectionButton({ form }: { form: Form }) {
  return (
    <button type="button" className="button" disabled={form.testing || form.saving} onClick={() => void form.test()}>
      {form.testing ? 'Testing…' : 'Test connection'}
    </button>
  );
}
