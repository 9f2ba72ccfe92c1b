import { useEffect, useId, useState } from 'react';
import type { RuleSource, SandboxSettingsInput, SandboxSettingsView } from '#protocol';
import { loadSandboxSettings, saveSandboxSettings } from '../../../actions/settings-pages';
import { EntryList } from './EntryList';

const SOURCES: Array<{ source: RuleSource; label: string }> = [
  { source: 'user', label: 'Your settings (every workspace)' },
  { source: 'local', label: 'Project, yours (this workspace, not shared)' },
  { source: 'project', label: 'Project, shared (committed with the workspace)' },
];

/** A path the sandbox can use: one line, `~/…`, absolute or relative to the workspace; never everything writable. */
export function pathProblem(path: string, writable: boolean): string | null {
  if (/\p{Cc}/u.test(path)) return 'A path is one line of printable text.';
  if (/^~[^/]/.test(path)) return 'Write ~/folder for a folder in your home; ~user is not supported.';
  if (writable && /^(\/+|~\/*|\.\/*|\.)$/.test(path)) return 'That would make everything under it writable; name a folder.';
  return null;
}

/** A domain as "sandbox.network.allowedDomains" takes it: a host name, *.name, an address, each with an optional :port. */
export function domainProblem(domain: string): string | null {
  if (/^[a-z]+:\/\//i.test(domain)) return 'Only the host name: leave out https:// and any path.';
  if (/[\s/]/.test(domain)) return 'A domain has no spaces or slashes (e.g. registry.npmjs.org or *.github.com).';
  return null;
}

function Status({ view }: { view: SandboxSettingsView }) {
  const { status } = view;
  const state = status.enabled ? 'On' : status.available ? 'Off' : 'Unavailable';
  return (
    <section className="settings-section" aria-labelledby="sandbox-state-h">
      <h4 id="sandbox-state-h">State</h4>
      <p className={`sandbox-state sandbox-state-${state.toLowerCase()}`}>
        <strong>{state}</strong>
        {status.enabled && status.note
          ? ` — ${status.note}`
          : status.enabled
            ? ` — Bash commands, a workspace's hooks and its MCP servers run in ${status.kind === 'seatbelt' ? 'Seatbelt (macOS)' : 'bubblewrap'}: writes only in the workspace and the folders below, the network only to allowed hosts (others ask).`
            : ` — ${status.reason ?? 'commands run without the OS sandbox'}`}
      </p>
      {status.install ? (
        <p className="form-note">
          To install it: <code>{status.install}</code>, then reopen the folder.
        </p>
      ) : null}
      {!status.enabled ? <p className="form-note">Without the sandbox, the permission rules alone decide what runs.</p> : null}
    </section>
  );
}

/** Settings → Sandbox: whether it is on and why not, and each settings file's writable folders, hidden paths and hosts. */
export function SandboxPage() {
  const [view, setView] = useState<SandboxSettingsView | null>(null);
  const [source, setSource] = useState<RuleSource>('user');
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  useEffect(() => {
    void loadSandboxSettings().then((v) => v && setView(v));
  }, []);
  if (!view) return <p className="form-note">Loading…</p>;
  const mine = view.sources[source];
  const locked = source !== 'user' && !view.trusted;
  const save = async (change: Omit<SandboxSettingsInput, 'source'>) => {
    const result = await saveSandboxSettings({ source, ...change });
    if (result.ok) setView(result.value);
    setError(result.ok ? null : result.message);
    return result.ok;
  };
  // A switch shows its new state at once; if the save is refused, the page reads the files again.
  const flip = (key: 'enabled' | 'autoAllow', value: boolean) => {
    setView({ ...view, sources: { ...view.sources, [source]: { ...mine, [key]: value } } });
    void save({ [key]: value }).then(async (ok) => {
      if (ok) return;
      const fresh = await loadSandboxSettings();
      if (fresh) setView(fresh);
    });
  };
  const file = view.files[source];
  return (
    <div className="settings-form">
      <Status view={view} />
      <section className="settings-section" aria-labelledby="sandbox-file-h">
        <h4 id="sandbox-file-h">Settings file</h4>
        <label htmlFor={`${id}-file`} className="visually-hidden">
          Sandbox settings file
        </label>
        <select id={`${id}-file`} className="settings-select settings-select-wide" value={source} onChange={(e) => setSource(e.target.value as RuleSource)}>
          {SOURCES.map((s) => (
            <option key={s.source} value={s.source}>
              {s.label}
            </option>
          ))}
        </select>
        <p className="form-note">
          Editing <code>{file}</code>. Lists add up across the three files; for the switches the project files win over yours.
        </p>
        {locked ? (
          <p className="form-note sandbox-locked">
            This folder is not trusted: its own files may only narrow the sandbox, and Settings changes them once you trust it (Permissions).
          </p>
        ) : null}
        <label className="checkbox" htmlFor={`${id}-on`}>
          <input
            id={`${id}-on`}
            type="checkbox"
            disabled={locked}
            checked={mine.enabled ?? view.effective.enabled}
            onChange={(e) => flip('enabled', e.target.checked)}
          />
          Run commands in the sandbox where it is available
        </label>
        <label className="checkbox" htmlFor={`${id}-auto`}>
          <input
            id={`${id}-auto`}
            type="checkbox"
            disabled={locked}
            checked={mine.autoAllow ?? view.effective.autoAllow}
            onChange={(e) => flip('autoAllow', e.target.checked)}
          />
          In Accept edits mode, run sandboxed commands without asking (autoAllow)
        </label>
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
      </section>
      <section className="settings-section" aria-labelledby="sandbox-write-h">
        <h4 id="sandbox-write-h">Writable folders (allowWrite)</h4>
        <p className="form-note">Besides the workspace and the session&apos;s temp folder. ~/ is your home; a relative path is in the workspace.</p>
        <EntryList
          label="Writable folders"
          entries={mine.allowWrite}
          placeholder="e.g. ~/.cache/pip"
          disabled={locked}
          check={(p) => pathProblem(p, true)}
          save={(allowWrite) => save({ allowWrite })}
        />
      </section>
      <section className="settings-section" aria-labelledby="sandbox-read-h">
        <h4 id="sandbox-read-h">Hidden paths (denyRead)</h4>
        <p className="form-note">Commands cannot read these, on top of the secrets Deft always hides (keys, sign-ins, cloud credentials).</p>
        <EntryList
          label="Hidden paths"
          entries={mine.denyRead}
          placeholder="e.g. ~/notes"
          disabled={locked}
          check={(p) => pathProblem(p, false)}
          save={(denyRead) => save({ denyRead })}
        />
      </section>
      <section className="settings-section" aria-labelledby="sandbox-net-h">
        <h4 id="sandbox-net-h">Allowed hosts (allowedDomains)</h4>
        <p className="form-note">Sandboxed commands reach these without asking; any other host asks in the window.</p>
        <EntryList
          label="Allowed hosts"
          entries={mine.allowedDomains}
          placeholder="e.g. registry.npmjs.org or *.github.com"
          disabled={locked}
          check={domainProblem}
          save={(allowedDomains) => save({ allowedDomains })}
        />
      </section>
      {view.problems.length || view.ignored.length ? (
        <section className="settings-section" aria-labelledby="sandbox-unused-h">
          <h4 id="sandbox-unused-h">Not used</h4>
          <ul className="hooks-problems">
            {[...view.problems, ...view.ignored.map((i) => `${i}: not used until you trust this folder`)].map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
