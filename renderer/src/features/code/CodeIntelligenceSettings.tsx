import { useEffect, useState } from 'react';
import type { LspServerState, LspStatus } from '#protocol';
import { loadLspStatus, setLspLanguage } from '../../actions/lsp';
import './code.css';

const STATE_TEXT: Record<LspServerState['state'], string> = {
  'not-started': 'Starts when the agent opens a file of its language',
  starting: 'Starting',
  running: 'Running',
  stopped: 'Stopped while idle',
  restarting: 'Crashed: restarting',
  off: 'Off for this session after repeated crashes',
  disabled: 'Turned off',
};

/** The language a server's switch turns on and off (its first language's family). */
function languageOf(server: LspServerState): string | null {
  const first = server.languages[0];
  if (!first) return null;
  return first.replace(/react$/, '') === 'javascript' ? 'javascript' : first.replace(/react$/, '');
}

/** Settings → Code intelligence: the language servers, their state and last error, with a switch per language. */
export function CodeIntelligenceSettings() {
  const [status, setStatus] = useState<LspStatus | null>(null);
  useEffect(() => {
    void loadLspStatus().then(setStatus);
  }, []);
  const toggle = async (language: string, enabled: boolean) => {
    const next = await setLspLanguage(language, enabled);
    if (next) setStatus(next);
  };
  if (!status) return <p className="form-note">Loading…</p>;
  return (
    <section aria-label="Code intelligence" className="code-settings">
      <p className="form-note">
        Language servers check every file the agent writes and answer its LSP tool. They start when the agent first reads or writes a file of their language,
        run in the sandbox, and stop when idle.
      </p>
      {status.host ? (
        <p className="form-note">This folder is on {status.host}: its language servers are found and run there, in its OS sandbox when it has one.</p>
      ) : null}
      {!status.enabled ? <p className="form-note">Turned off by &quot;lsp.enabled&quot;: false in ~/.deft/settings.json.</p> : null}
      {!status.trusted ? (
        <p className="form-note">This folder is not trusted: no language server starts here (a server runs code the repository ships).</p>
      ) : null}
      {status.problems.length ? (
        <ul className="hooks-problems" aria-label="Problems with language servers">
          {status.problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
      <ul className="card-list" aria-label="Language servers">
        {status.servers.map((server) => {
          const language = languageOf(server);
          const on = server.state !== 'disabled';
          return (
            <li key={server.id} className="list-card">
              <div className="list-card-head">
                <strong>{server.id}</strong>
                <span className="mcp-badge">{server.source === 'user' ? 'Your settings' : 'Built in'}</span>
                <span className="file-meta">{server.languages.join(', ')}</span>
              </div>
              <div className="code-server-state">
                <span>
                  {STATE_TEXT[server.state]}
                  {server.state === 'running' ? (server.sandboxed ? ' · sandboxed' : ' · not sandboxed') : ''}
                </span>
                {language ? (
                  <label className="checkbox-row">
                    <input type="checkbox" aria-label={`Use ${server.id}`} checked={on} onChange={(e) => void toggle(language, e.target.checked)} /> On
                  </label>
                ) : null}
              </div>
              {server.lastError ? <pre className="code-server-error">{server.lastError}</pre> : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
