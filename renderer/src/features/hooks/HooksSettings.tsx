import { useEffect } from 'react';
import type { HookInfo } from '#protocol';
import { loadHooks } from '../../actions/hooks';
import { useHooks } from '../../stores/hooks';
import './hooks.css';

const SOURCE_TEXT: Record<HookInfo['source'], string> = { user: 'Your settings', project: 'Project settings', local: 'Local settings' };

/** Settings → Hooks: every hook command in the settings files, where it comes from, and whether it runs. */
export function HooksSettings() {
  const overview = useHooks((s) => s.overview);
  useEffect(() => void loadHooks(), []);
  return (
    <section aria-label="Hooks" className="hooks-settings">
      {!overview ? <p className="form-note">Loading…</p> : null}
      {overview && !overview.hooks.length ? (
        <p className="form-note">
          No hooks are configured. Add them under &quot;hooks&quot; in ~/.deft/settings.json or the workspace’s .deft/settings.json (see the README’s Hooks
          section).
        </p>
      ) : null}
      {overview?.problems.length ? (
        <ul className="hooks-problems" aria-label="Problems in hook settings">
          {overview.problems.map((p) => (
            <li key={`${p.file}:${p.message}`}>{p.message}</li>
          ))}
        </ul>
      ) : null}
      {overview?.hooks.length ? (
        <ul className="hooks-list" aria-label="Hooks in effect">
          {overview.hooks.map((hook, i) => (
            <li key={`${hook.file}:${hook.event}:${hook.matcher}:${hook.command}:${i}`} className={`hook-row${hook.active ? '' : ' hook-inactive'}`}>
              <div className="hook-head">
                <span className="hook-event">{hook.event}</span>
                {hook.matcher ? <code className="hook-matcher">{hook.matcher}</code> : null}
                <span className="mcp-badge">{SOURCE_TEXT[hook.source]}</span>
                {!hook.active ? <span className="hook-state">Not run: this folder is not trusted</span> : null}
              </div>
              <code className="hook-command">{hook.command}</code>
              <div className="hook-meta">
                {hook.file} · timeout {hook.timeoutSec} s
              </div>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
