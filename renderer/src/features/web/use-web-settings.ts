import { useEffect, useState } from 'react';
import { DeftError } from '#protocol/helpers/bridge';
import type { PublicWebSettings, SearchProviderKind, WebSearchInput, WebSearchResult } from '#protocol';
import { loadWebSettings, saveWebSettings, testWebSearch } from '../../actions/web';

export interface WebDraft {
  provider: SearchProviderKind | 'none';
  baseUrl: string;
  apiKey: string;
  /** One host per line. */
  hosts: string;
}

export type TestOutcome = { ok: true; results: WebSearchResult[] } | { ok: false; message: string };

const draftOf = (settings: PublicWebSettings): WebDraft => ({
  provider: settings.search?.provider ?? 'none',
  baseUrl: settings.search && settings.search.provider === 'searxng' ? settings.search.baseUrl : '',
  apiKey: '',
  hosts: settings.allowPrivateHosts.join('\n'),
});

/** The hosts typed in the box, one a line (commas work too). */
export function hostsOf(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((h) => h.trim())
    .filter(Boolean);
}

/** State behind Settings → Web: load, edit, test the provider, save. */
export function useWebSettings() {
  const [current, setCurrent] = useState<PublicWebSettings | null>(null);
  const [draft, setDraft] = useState<WebDraft | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<'saving' | 'testing' | null>(null);
  const [saved, setSaved] = useState(false);
  const [test, setTest] = useState<TestOutcome | null>(null);

  useEffect(() => {
    let live = true;
    loadWebSettings().then(
      (settings) => {
        if (!live) return;
        setCurrent(settings);
        setDraft(draftOf(settings));
      },
      (e: unknown) => live && setError(DeftError.from(e).detail),
    );
    return () => {
      live = false;
    };
  }, []);

  const update = (patch: Partial<WebDraft>) => {
    setSaved(false);
    setTest(null);
    setDraft((d) => (d ? { ...d, ...patch } : d));
  };

  const searchInput = (d: WebDraft, includeKey: boolean): WebSearchInput | null =>
    d.provider === 'none'
      ? null
      : {
          provider: d.provider,
          ...(d.baseUrl.trim() ? { baseUrl: d.baseUrl.trim() } : {}),
          ...(includeKey && d.apiKey.trim() ? { apiKey: d.apiKey.trim() } : {}),
        };

  async function save(): Promise<void> {
    if (!draft) return;
    setError(null);
    if (draft.provider === 'searxng' && !draft.baseUrl.trim()) {
      setError('Enter the URL of your SearXNG instance, e.g. http://127.0.0.1:8888.');
      return;
    }
    setBusy('saving');
    try {
      const settings = await saveWebSettings({ search: searchInput(draft, true), allowPrivateHosts: hostsOf(draft.hosts) });
      setCurrent(settings);
      setDraft({ ...draftOf(settings), baseUrl: draft.baseUrl });
      setSaved(true);
    } catch (e) {
      setError(DeftError.from(e).detail);
    } finally {
      setBusy(null);
    }
  }

  async function runTest(): Promise<void> {
    const search = draft && searchInput(draft, true);
    if (!search) return;
    setBusy('testing');
    setTest(null);
    try {
      setTest({ ok: true, results: await testWebSearch({ search, query: 'deft coding agent' }) });
    } catch (e) {
      setTest({ ok: false, message: DeftError.from(e).detail });
    } finally {
      setBusy(null);
    }
  }

  return { current, draft, update, save, runTest, error, busy, saved, test };
}
