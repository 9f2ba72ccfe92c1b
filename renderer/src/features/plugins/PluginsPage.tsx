import { type FormEvent, useEffect, useId, useState } from 'react';
import type { PluginOverview } from '#protocol';
import { addPluginMarketplace, installPlugin, loadPlugins, removePlugin, removePluginMarketplace, setPluginEnabled, updatePlugin } from '../../actions/plugins';
import type { Outcome } from '../../actions/outcome';
import { Spinner } from '../../components/Icon';
import { PluginContents } from './PluginContents';
import './plugins.css';

/** Settings → Plugins: add a marketplace, see what each plugin brings, install, enable or disable in one click, remove. */
export function PluginsPage() {
  const id = useId();
  const [data, setData] = useState<PluginOverview | null>(null);
  const [source, setSource] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void loadPlugins().then((overview) => live && overview && setData(overview));
    return () => {
      live = false;
    };
  }, []);
  const run = async (key: string, work: () => Promise<Outcome<PluginOverview>>) => {
    setBusy(key);
    setError(null);
    const done = await work();
    setBusy(null);
    if (done.ok) setData(done.value);
    else setError(done.error);
    return done.ok;
  };
  const add = async (e: FormEvent) => {
    e.preventDefault();
    if (await run('add', () => addPluginMarketplace(source.trim()))) setSource('');
  };
  if (!data)
    return (
      <p role="status">
        <Spinner size={12} />
      </p>
    );
  return (
    <section className="plugins-page" aria-label="Plugins">
      <p className="form-note">
        Claude Code plugins: skills, commands, sub-agent types, hooks and MCP servers in one folder. Installing one is your act of trust: its hooks and servers
        run as your own, in every folder, until you disable it.
      </p>
      <form className="plugin-add" onSubmit={(e) => void add(e)}>
        <label htmlFor={`${id}-src`}>Add a marketplace</label>
        <div className="plugin-add-row">
          <input
            id={`${id}-src`}
            value={source}
            placeholder="A folder, or https://… / file://… / owner/repo"
            spellCheck={false}
            onChange={(e) => setSource(e.target.value)}
          />
          <button type="submit" className="button" disabled={busy !== null || !source.trim()}>
            {busy === 'add' ? <Spinner size={12} /> : null} Add
          </button>
        </div>
      </form>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      {data.suggested.length ? (
        <section className="plugin-suggested" aria-label="Suggested by this workspace">
          <p>This workspace suggests these plugins. Nothing is installed until you choose to: see what each brings below first.</p>
          <ul>
            {data.suggested.map((ref) => {
              const [name, market] = ref.split('@');
              const offered = data.marketplaces.find((m) => m.name === market)?.plugins.find((p) => p.name === name);
              return (
                <li key={ref}>
                  <code>{ref}</code>{' '}
                  {offered && !offered.installed ? (
                    <button
                      type="button"
                      className="button button-small"
                      disabled={busy !== null || Boolean(offered.error)}
                      onClick={() => void run(ref, () => installPlugin(ref))}
                    >
                      {busy === ref ? <Spinner size={12} /> : null} Install {name}
                    </button>
                  ) : (
                    <span className="plugin-meta">{market ? `add the marketplace ${market} to install it` : 'no marketplace named'}</span>
                  )}
                </li>
              );
            })}
          </ul>
        </section>
      ) : null}

      <h4>Installed</h4>
      {data.installed.length ? null : <p className="form-note">No plugins installed yet.</p>}
      <ul className="plugin-list">
        {data.installed.map((plugin) => {
          const ref = `${plugin.name}@${plugin.marketplace}`;
          return (
            <li key={ref} className={plugin.enabled ? 'plugin' : 'plugin plugin-off'}>
              <div className="plugin-head">
                <label className="plugin-toggle">
                  <input
                    type="checkbox"
                    checked={plugin.enabled}
                    disabled={busy !== null}
                    onChange={(e) => void run(ref, () => setPluginEnabled(ref, e.target.checked))}
                  />
                  <span className="plugin-name">{plugin.name}</span>
                </label>
                <span className="plugin-meta">
                  {plugin.marketplace}
                  {plugin.version ? ` · ${plugin.version}` : ''} · {plugin.enabled ? 'enabled' : 'disabled'}
                </span>
                <span className="plugin-actions">
                  <button type="button" className="button button-small" disabled={busy !== null} onClick={() => void run(ref, () => updatePlugin(ref))}>
                    Update
                  </button>
                  <button type="button" className="button button-small" disabled={busy !== null} onClick={() => void run(ref, () => removePlugin(ref))}>
                    Remove
                  </button>
                </span>
              </div>
              {plugin.contents ? <PluginContents contents={plugin.contents} /> : null}
              {plugin.error ? <p className="form-error">{plugin.error}</p> : null}
            </li>
          );
        })}
      </ul>

      <h4>Marketplaces</h4>
      {data.marketplaces.length ? null : <p className="form-note">No marketplaces yet: add a folder or a git repository above.</p>}
      {data.marketplaces.map((market) => (
        <section key={market.name} className="plugin-market" aria-label={`Marketplace ${market.name}`}>
          <div className="plugin-head">
            <span className="plugin-name">{market.name}</span>
            <span className="plugin-meta" title={market.source}>
              {market.kind === 'git' ? 'git' : 'folder'} · {market.source}
            </span>
            <span className="plugin-actions">
              <button
                type="button"
                className="button button-small"
                disabled={busy !== null}
                onClick={() => void run(market.name, () => removePluginMarketplace(market.name))}
              >
                Remove
              </button>
            </span>
          </div>
          {market.error ? <p className="form-error">{market.error}</p> : null}
          <ul className="plugin-list">
            {market.plugins.map((plugin) => {
              const ref = `${plugin.name}@${market.name}`;
              return (
                <li key={ref} className="plugin">
                  <div className="plugin-head">
                    <span className="plugin-name">{plugin.name}</span>
                    <span className="plugin-meta">{[plugin.version, plugin.description].filter(Boolean).join(' · ')}</span>
                    <span className="plugin-actions">
                      {plugin.installed ? (
                        <span className="plugin-meta">Installed</span>
                      ) : (
                        <button
                          type="button"
                          className="button button-small button-primary"
                          disabled={busy !== null || Boolean(plugin.error)}
                          aria-label={`Install ${plugin.name}`}
                          onClick={() => void run(ref, () => installPlugin(ref))}
                        >
                          {busy === ref ? <Spinner size={12} /> : null} Install
                        </button>
                      )}
                    </span>
                  </div>
                  {plugin.contents ? (
                    <PluginContents contents={plugin.contents} />
                  ) : plugin.error ? (
                    <p className="form-error">{plugin.error}</p>
                  ) : (
                    <p className="form-note">From {plugin.from}: what it brings is read when it is installed.</p>
                  )}
                </li>
              );
            })}
          </ul>
        </section>
      ))}
    </section>
  );
}
