import { useEffect } from 'react';
import { loadHooks } from '../../actions/hooks';
import { useHooks } from '../../stores/hooks';
import { AddHook } from './AddHook';
import { HookRow } from './HookRow';
import './hooks.css';

/** Settings → Hooks: every hook command in the settings files, where it comes from, whether it runs; turn off, test, add. */
export function HooksSettings() {
  const overview = useHooks((s) => s.overview);
  useEffect(() => void loadHooks(), []);
  return (
    <section aria-label="Hooks" className="hooks-settings">
      {!overview ? <p className="form-note">Loading…</p> : null}
      {overview && !overview.hooks.length ? (
        <p className="form-note">
          No hooks are configured yet. Add one below, or under &quot;hooks&quot; in ~/.deft/settings.json or the workspace’s .deft/settings.json.
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
        <>
          <p className="form-note">Test runs a hook now with a sample event of its type, as it would run (its sandbox and timeout), and shows what it did.</p>
          <ul className="card-list" aria-label="Hooks in effect">
            {overview.hooks.map((hook, i) => (
              <HookRow key={`${hook.file}:${hook.event}:${hook.group}:${hook.index}:${hook.command}:${i}`} hook={hook} trusted={overview.trusted} />
            ))}
          </ul>
        </>
      ) : null}
      {overview ? <AddHook trusted={overview.trusted} /> : null}
    </section>
  );
}
