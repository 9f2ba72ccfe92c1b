import { useEffect, useState } from 'react';
import { Icon } from '../../components/Icon';
import { loadPermissions, trustWorkspace } from '../../actions/permissions';
import { usePermissions } from '../../stores/permissions';
import { loadHooks } from '../../actions/hooks';
import { useHooks } from '../../stores/hooks';
import type { RuleProblem } from '#protocol';
import './permissions.css';

const NONE: RuleProblem[] = [];
const NOTHING: string[] = [];

/** The workspace's own hooks, which do not run until the folder is trusted, as banner lines. */
function useInactiveHooks(): string[] {
  const hooks = useHooks((s) => s.overview?.hooks);
  const lines = (hooks ?? []).filter((h) => !h.active).map((h) => `hook ${h.event}${h.matcher ? ` (${h.matcher})` : ''}: ${h.command} (${h.file})`);
  return lines.length ? lines : NOTHING;
}

/** The workspace's own settings ask for more than an untrusted folder gets: say what, and offer to trust it. */
function UntrustedSettings() {
  const rules = usePermissions((s) => s.rules?.trust.ignored ?? NOTHING);
  const hooks = useInactiveHooks();
  const ignored = [...rules, ...hooks];
  if (!ignored.length) return null;
  return (
    <div className="banner banner-warning rule-problems" role="alert" aria-label="Folder not trusted">
      <Icon name="alert" size={14} />
      <div className="banner-text">
        <strong>This folder&apos;s own settings would widen what the agent may do or run commands; they are not used until you trust it</strong>
        <ul className="rule-problem-list">
          {ignored.map((entry) => (
            <li key={entry}>
              <code>{entry}</code>
            </li>
          ))}
        </ul>
      </div>
      <button type="button" className="button" onClick={() => void trustWorkspace()}>
        Trust this folder
      </button>
    </div>
  );
}

/** Invalid permission rules, each with its file: they are not used until fixed. Rules are re-read when the window regains focus. */
export function RuleProblems() {
  const problems = usePermissions((s) => s.rules?.problems ?? NONE);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    void loadPermissions();
    void loadHooks();
    const onFocus = () => {
      void loadPermissions();
      void loadHooks();
    };
    window.addEventListener('focus', onFocus);
    return () => window.removeEventListener('focus', onFocus);
  }, []);
  const widening = usePermissions((s) => (s.rules?.trust.ignored.length ?? 0) > 0);
  const inactiveHooks = useInactiveHooks();
  const untrusted = widening || inactiveHooks.length > 0;
  if (!problems.length && !untrusted) return null;
  const shown = open ? problems : problems.slice(0, 2);
  return (
    <div className="banners">
      <UntrustedSettings />
      {problems.length ? (
        <div className="banner banner-warning rule-problems" role="alert" aria-label="Invalid permission rules">
          <Icon name="alert" size={14} />
          <div className="banner-text">
            <strong>
              {problems.length === 1 ? 'A permission rule is invalid and is not used' : `${problems.length} permission rules are invalid and are not used`}
            </strong>
            <ul className="rule-problem-list">
              {shown.map((p, i) => (
                <li key={i}>
                  {p.rule !== undefined ? <code>{p.rule}</code> : null} {p.message}
                </li>
              ))}
            </ul>
          </div>
          {problems.length > 2 ? (
            <button type="button" className="button button-ghost" onClick={() => setOpen(!open)}>
              {open ? 'Show fewer' : `Show all ${problems.length}`}
            </button>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
