import { useEffect, useState } from 'react';
import type { McpServerInfo } from '#protocol';
import { DeftError } from '#protocol/helpers/bridge';
import { decideMcpServer, loadMcpServers, restartMcpServer, saveMcpServer, setMcpServerEnabled } from '../../actions/mcp';
import { readServerEntry, type ServerEntry } from './server-entry';
import { useMcp } from '../../stores/mcp';

const STATUS_TEXT: Record<McpServerInfo['status'], string> = {
  untrusted: 'Not started: this folder is not trusted',
  'needs-approval': 'Waiting for your approval',
  denied: 'Denied',
  disabled: 'Disabled',
  starting: 'Starting…',
  connected: 'Connected',
  failed: 'Failed',
  'needs-auth': 'Needs authentication',
};

const SOURCE_TEXT: Record<McpServerInfo['source'], string> = { user: 'Your servers', project: 'This workspace', cli: 'Command line' };

/** Settings → MCP servers: every server with its status, tools and actions, and a form to add one. */
export function McpServers() {
  const overview = useMcp((s) => s.overview);
  useEffect(() => void loadMcpServers(), []);
  return (
    <section aria-label="MCP servers" className="mcp-servers">
      {!overview ? <p className="form-note">Loading…</p> : null}
      {overview && !overview.servers.length ? (
        <p className="form-note">No MCP servers are configured. Add one below, or in ~/.deft/mcp.json, the workspace’s .mcp.json or .deft/mcp.json.</p>
      ) : null}
      {overview?.problems.length ? (
        <ul className="mcp-problems" aria-label="Problems in MCP files">
          {overview.problems.map((p) => (
            <li key={`${p.file}:${p.message}`}>
              <code>{p.file}</code> {p.message}
            </li>
          ))}
        </ul>
      ) : null}
      <ul className="card-list">
        {overview?.servers.map((server) => (
          <ServerRow key={server.name} server={server} />
        ))}
      </ul>
      <AddServer />
    </section>
  );
}

function ServerRow({ server }: { server: McpServerInfo }) {
  const [editing, setEditing] = useState(false);
  const toolCount = server.tools.length;
  const deferred = server.tools.filter((t) => t.deferred).length;
  const status =
    server.status === 'connected'
      ? `Connected · ${toolCount} tool${toolCount === 1 ? '' : 's'}${deferred ? ` (${deferred} deferred)` : ''}`
      : STATUS_TEXT[server.status];
  return (
    <li className={`list-card mcp-status-${server.status}`} aria-label={`MCP server ${server.name}`}>
      <div className="list-card-head">
        <span className="mcp-server-name">{server.name}</span>
        <span className="mcp-badge">{SOURCE_TEXT[server.source]}</span>
        <span className="mcp-badge">{server.transport}</span>
        <span className="mcp-state" role="status">
          {status}
        </span>
      </div>
      <div className="mcp-target" title={server.file}>
        <code>{server.target}</code>
        <span className="mcp-file">{server.file}</span>
      </div>
      {server.error ? <p className="mcp-error">{server.error}</p> : null}
      {server.missingVariables.length ? <p className="mcp-warning">Unset variables: {server.missingVariables.join(', ')}</p> : null}
      {server.status === 'failed' && server.stderr.length ? (
        <pre className="mcp-stderr" aria-label={`Last stderr lines of ${server.name}`}>
          {server.stderr.join('\n')}
        </pre>
      ) : null}
      {server.status === 'needs-approval' ? (
        <div className="mcp-approval">
          <p className="form-note">
            This server comes from the workspace’s own files. It starts only if you approve this exact definition; a changed one asks again.
          </p>
          <pre className="mcp-definition" aria-label={`Definition of ${server.name}`}>
            {JSON.stringify(server.definition, null, 2)}
          </pre>
          {server.variables.length ? <p className="mcp-warning">It reads these variables from your environment: {server.variables.join(', ')}</p> : null}
        </div>
      ) : null}
      {toolCount ? (
        <details className="mcp-tools">
          <summary>Tools ({toolCount})</summary>
          <ul>
            {server.tools.map((tool) => (
              <li key={tool.name}>
                <code>{tool.name}</code>
                {tool.deferred ? <span className="mcp-badge">deferred</span> : null} <span className="mcp-tool-description">{tool.description}</span>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      <div className="mcp-actions">
        {server.status === 'needs-auth' && server.authorizeUrl && /^https?:\/\//.test(server.authorizeUrl) ? (
          // Opens in the system browser (the desktop app sends new windows there); the server connects once the sign-in finishes.
          <a className="button button-primary" href={server.authorizeUrl} target="_blank" rel="noopener noreferrer">
            Sign in to {server.name}
          </a>
        ) : null}
        {server.status === 'needs-approval' || server.status === 'denied' ? (
          <>
            <button type="button" className="button button-primary" onClick={() => void decideMcpServer(server.name, true)}>
              Approve {server.name}
            </button>
            {server.status === 'needs-approval' ? (
              <button type="button" className="button" onClick={() => void decideMcpServer(server.name, false)}>
                Deny {server.name}
              </button>
            ) : null}
          </>
        ) : null}
        {server.status !== 'untrusted' && server.status !== 'needs-approval' && server.status !== 'denied' ? (
          <>
            {server.status !== 'disabled' ? (
              <button type="button" className="button" onClick={() => void restartMcpServer(server.name)}>
                Restart {server.name}
              </button>
            ) : null}
            <button type="button" className="button" onClick={() => void setMcpServerEnabled(server.name, server.status === 'disabled')}>
              {server.status === 'disabled' ? 'Enable' : 'Disable'} {server.name}
            </button>
          </>
        ) : null}
        {server.source === 'user' && !editing ? (
          <button type="button" className="button" onClick={() => setEditing(true)}>
            Edit {server.name}
          </button>
        ) : null}
      </div>
      {editing ? <EditServer server={server} done={() => setEditing(false)} /> : null}
    </li>
  );
}

/** Saving a server's entry: the reason it was refused (by the form or by the core), and whether a save is on its way. */
function useSaveServer() {
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const save = async (entry: ServerEntry, saved: () => void) => {
    setError(null);
    if ('error' in entry) return setError(entry.error);
    setSaving(true);
    try {
      await saveMcpServer(entry.name, entry.definition);
      saved();
    } catch (e) {
      setError(DeftError.from(e).detail);
    } finally {
      setSaving(false);
    }
  };
  return { error, saving, save };
}

function FormError({ error }: { error: string | null }) {
  return error ? (
    <p className="form-error" role="alert">
      {error}
    </p>
  ) : null;
}

/** Edit one of your own servers' JSON entry: checked by the core before it replaces the one in ~/.deft/mcp.json. */
function EditServer({ server, done }: { server: McpServerInfo; done: () => void }) {
  const [json, setJson] = useState(() => JSON.stringify(server.definition, null, 2));
  const { error, saving, save } = useSaveServer();
  return (
    <div className="mcp-edit">
      <label className="field">
        <span>JSON of {server.name}</span>
        <textarea value={json} onChange={(e) => setJson(e.target.value)} rows={Math.min(12, json.split('\n').length + 1)} spellCheck={false} />
      </label>
      <FormError error={error} />
      <div className="mcp-actions">
        <button type="button" className="button button-primary" disabled={saving} onClick={() => void save(readServerEntry(json, server.name, false), done)}>
          {saving ? 'Saving…' : `Save ${server.name}`}
        </button>
        <button type="button" className="button" disabled={saving} onClick={done}>
          Cancel
        </button>
      </div>
    </div>
  );
}

type Kind = 'stdio' | 'http' | 'sse';

/** The entry as fields: how it runs, then its command and arguments (one per line) or its URL. Each change writes the JSON below. */
function ServerFields({ onChange }: { onChange: (definition: Record<string, unknown>) => void }) {
  const [fields, setFields] = useState<{ kind: Kind; command: string; args: string; url: string }>({ kind: 'stdio', command: '', args: '', url: '' });
  const update = (change: Partial<typeof fields>) => {
    const next = { ...fields, ...change };
    setFields(next);
    const args = next.args
      .split('\n')
      .map((a) => a.trim())
      .filter(Boolean);
    onChange(next.kind === 'stdio' ? { command: next.command.trim(), ...(args.length ? { args } : {}) } : { type: next.kind, url: next.url.trim() });
  };
  return (
    <div className="mcp-fields">
      <label className="field">
        <span>Runs as</span>
        <select value={fields.kind} onChange={(e) => update({ kind: e.target.value as Kind })}>
          <option value="stdio">A command (stdio)</option>
          <option value="http">A remote server (Streamable HTTP)</option>
          <option value="sse">A remote server (HTTP+SSE)</option>
        </select>
      </label>
      {fields.kind === 'stdio' ? (
        <>
          <label className="field">
            <span>Command</span>
            <input value={fields.command} onChange={(e) => update({ command: e.target.value })} placeholder="npx" spellCheck={false} />
          </label>
          <label className="field">
            <span>Arguments, one per line</span>
            <textarea
              value={fields.args}
              onChange={(e) => update({ args: e.target.value })}
              rows={2}
              placeholder={'-y\n@modelcontextprotocol/server-everything'}
              spellCheck={false}
            />
          </label>
        </>
      ) : (
        <label className="field">
          <span>URL</span>
          <input value={fields.url} onChange={(e) => update({ url: e.target.value })} placeholder="https://example.com/mcp" spellCheck={false} />
        </label>
      )}
    </div>
  );
}

const EXAMPLE = '{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}';

function AddServer() {
  const [name, setName] = useState('');
  const [json, setJson] = useState('');
  const { error, saving, save } = useSaveServer();
  const add = () =>
    save(readServerEntry(json, name, true), () => {
      setName('');
      setJson('');
    });
  return (
    <details className="mcp-add">
      <summary>Add a server</summary>
      <p className="form-note">Saved to your own ~/.deft/mcp.json, in the mcpServers format other agents use. Fill in the fields, or paste a JSON entry.</p>
      <label className="field">
        <span>Server name</span>
        <input value={name} onChange={(e) => setName(e.target.value)} placeholder="github" />
      </label>
      <ServerFields onChange={(definition) => setJson(JSON.stringify(definition, null, 2))} />
      <label className="field">
        <span>Server JSON</span>
        <textarea value={json} onChange={(e) => setJson(e.target.value)} rows={4} placeholder={EXAMPLE} spellCheck={false} />
      </label>
      <FormError error={error} />
      <button type="button" className="button" disabled={saving || !json.trim()} onClick={() => void add()}>
        {saving ? 'Adding…' : 'Add server'}
      </button>
    </details>
  );
}
