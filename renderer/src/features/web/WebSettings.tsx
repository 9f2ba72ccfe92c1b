import { useId } from 'react';
import type { SearchProviderKind } from '#protocol';
import { type WebDraft, useWebSettings } from './use-web-settings';
import './web.css';

const PROVIDERS: Array<{ id: WebDraft['provider']; label: string; note: string }> = [
  { id: 'none', label: 'None (WebSearch off)', note: 'The model is not offered WebSearch. FetchURL still works.' },
  { id: 'searxng', label: 'SearXNG (self-hosted)', note: 'Your own instance; its settings.yml must enable the json format (search: formats: [html, json]).' },
  { id: 'brave', label: 'Brave Search API', note: 'Needs a key from the Brave Search API dashboard.' },
  { id: 'tavily', label: 'Tavily', note: 'Needs a key (tvly-…) from Tavily.' },
];

const DEFAULT_URLS: Record<SearchProviderKind, string> = {
  searxng: 'http://127.0.0.1:8888',
  brave: 'https://api.search.brave.com/res/v1',
  tavily: 'https://api.tavily.com',
};

/** Settings → Web: the search provider WebSearch uses, and the private hosts FetchURL may reach. */
export function WebSettings() {
  const ids = { provider: useId(), url: useId(), key: useId(), hosts: useId() };
  const form = useWebSettings();
  const { draft, current } = form;
  if (!draft) {
    return (
      <section className="web-settings" aria-label="Web settings">
        {form.error ? (
          <p className="form-error" role="alert">
            {form.error}
          </p>
        ) : (
          <p className="form-note">Loading…</p>
        )}
      </section>
    );
  }
  const provider = PROVIDERS.find((p) => p.id === draft.provider)!;
  const keyed = draft.provider === 'brave' || draft.provider === 'tavily';
  const sameProvider = current?.search?.provider === draft.provider;
  const keyHint =
    sameProvider && current?.search?.apiKeySource === 'env'
      ? 'Using DEFT_SEARCH_API_KEY from the environment (it wins over a saved key).'
      : sameProvider && current?.search?.hasApiKey
        ? 'A key is saved. Leave empty to keep it.'
        : 'Stored like model API keys, never in settings.json.';
  return (
    <section className="web-settings provider-form" aria-label="Web settings">
      <label htmlFor={ids.provider}>Search provider</label>
      <select id={ids.provider} value={draft.provider} onChange={(e) => form.update({ provider: e.target.value as WebDraft['provider'], apiKey: '' })}>
        {PROVIDERS.map((p) => (
          <option key={p.id} value={p.id}>
            {p.label}
          </option>
        ))}
      </select>
      <p className="form-note">{provider.note}</p>
      {draft.provider !== 'none' ? (
        <>
          <label htmlFor={ids.url}>{draft.provider === 'searxng' ? 'Instance URL' : 'API URL (optional)'}</label>
          <input
            id={ids.url}
            type="url"
            spellCheck={false}
            placeholder={DEFAULT_URLS[draft.provider]}
            value={draft.baseUrl}
            onChange={(e) => form.update({ baseUrl: e.target.value })}
          />
          <label htmlFor={ids.key}>API key{keyed ? '' : ' (optional)'}</label>
          <div className="input-row">
            <input
              id={ids.key}
              type="password"
              autoComplete="off"
              placeholder={sameProvider && current?.search?.hasApiKey ? '•••••••• (saved)' : keyed ? 'Required' : 'Only if your instance asks for one'}
              value={draft.apiKey}
              onChange={(e) => form.update({ apiKey: e.target.value })}
            />
            <button type="button" className="button" disabled={form.busy !== null} onClick={() => void form.runTest()}>
              {form.busy === 'testing' ? 'Testing…' : 'Test'}
            </button>
          </div>
          <p className="form-note">{keyHint}</p>
          {form.test?.ok ? (
            <div role="status">
              <p className="form-note">Works: {form.test.results.length === 1 ? '1 result' : `${form.test.results.length} results`} for “deft coding agent”.</p>
              <ul className="web-test-results">
                {form.test.results.slice(0, 3).map((r) => (
                  <li key={r.url}>{r.title}</li>
                ))}
              </ul>
            </div>
          ) : null}
          {form.test && !form.test.ok ? (
            <p className="form-error" role="alert">
              {form.test.message}
            </p>
          ) : null}
        </>
      ) : null}
      <label htmlFor={ids.hosts}>Allowed private hosts</label>
      <textarea
        id={ids.hosts}
        rows={3}
        spellCheck={false}
        placeholder={'127.0.0.1:8080\nintranet.local\n*.corp.example'}
        value={draft.hosts}
        onChange={(e) => form.update({ hosts: e.target.value })}
      />
      <p className="form-note">
        FetchURL never reaches this machine or your private network (localhost, 10.x, 192.168.x, 169.254.x…) unless the host is listed here: one per line, with
        :port to allow only that port.
      </p>
      {current?.workspaceHosts.hosts.length ? (
        <p className="form-note">
          This folder's .deft settings add {current.workspaceHosts.hosts.join(', ')}
          {current.workspaceHosts.trusted ? '.' : ' — not used until you trust the folder.'}
        </p>
      ) : null}
      {current?.problems.map((problem) => (
        <p key={problem} className="form-error">
          {problem}
        </p>
      ))}
      {form.error ? (
        <p className="form-error" role="alert">
          {form.error}
        </p>
      ) : null}
      <div className="web-settings-actions">
        <button type="button" className="button" disabled={form.busy !== null} onClick={() => void form.save()}>
          {form.busy === 'saving' ? 'Saving…' : 'Save web settings'}
        </button>
        {form.saved ? (
          <span className="web-saved" role="status">
            Saved
          </span>
        ) : null}
      </div>
    </section>
  );
}
