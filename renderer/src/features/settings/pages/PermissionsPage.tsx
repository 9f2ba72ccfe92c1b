import { type FormEvent, useEffect, useId, useState } from 'react';
import type { PermissionMode, PermissionRuleInfo, RuleSource, TrustedFolder } from '#protocol';
import { editRule, forgetFolderTrust, listTrustedFolders, loadPermissions, setDefaultMode, trustWorkspace } from '../../../actions/permissions';
import { usePermissions } from '../../../stores/permissions';
import { useSettings } from '../../../stores/settings';
import { SessionGrants } from './SessionGrants';

const MODES: Array<{ mode: PermissionMode; label: string; note: string }> = [
  { mode: 'ask', label: 'Ask', note: 'Read-only tools run; everything else asks.' },
  { mode: 'accept-edits', label: 'Accept edits', note: 'File edits inside the workspace run too; commands ask.' },
  { mode: 'yolo', label: 'Yolo', note: 'Everything runs; deny rules and protected paths still hold.' },
];
const SOURCES: Array<{ source: RuleSource; label: string; note: string }> = [
  { source: 'user', label: 'Your settings', note: 'every workspace' },
  { source: 'project', label: 'Project, shared', note: 'committed with the workspace' },
  { source: 'local', label: 'Project, yours', note: 'this workspace, not shared' },
];
const DECISIONS = ['allow', 'ask', 'deny'] as const;

function DefaultMode() {
  const rules = usePermissions((s) => s.rules);
  const files = rules?.files;
  const current = rules?.defaultMode;
  const id = useId();
  const fromWorkspace = current && current.source !== 'user';
  const shown = current?.source === 'user' ? current.mode : (current?.mode ?? 'ask');
  return (
    <section className="settings-section" aria-labelledby={`${id}-h`}>
      <h4 id={`${id}-h`}>Default mode for new sessions</h4>
      <label htmlFor={id} className="visually-hidden">
        Default permission mode
      </label>
      <select id={id} className="settings-select" value={shown} onChange={(e) => void setDefaultMode(e.target.value as PermissionMode)}>
        {MODES.map((m) => (
          <option key={m.mode} value={m.mode}>
            {m.label}
          </option>
        ))}
      </select>
      <p className="form-note">{MODES.find((m) => m.mode === shown)?.note}</p>
      <p className="form-note">
        {fromWorkspace
          ? `In force here: ${current.mode}, set by ${files?.[current.source]} (a workspace file wins over your own settings). Choosing here changes your default in ${files?.user}.`
          : `Saved in ${files?.user ?? '~/.deft/settings.json'}. A session can still switch its own mode under the message box.`}
      </p>
    </section>
  );
}

function RuleRow({ rule }: { rule: PermissionRuleInfo }) {
  const [busy, setBusy] = useState(false);
  return (
    <li className={`rule-row${rule.ignored ? ' rule-ignored' : ''}`}>
      <span className={`rule-decision rule-${rule.decision}`}>{rule.decision}</span>
      <code className="rule-pattern">{rule.pattern}</code>
      {rule.ignored ? <span className="rule-note">not used until you trust this folder</span> : null}
      <button
        type="button"
        className="link-button"
        disabled={busy}
        aria-label={`Remove ${rule.decision} rule ${rule.pattern}`}
        onClick={() => {
          setBusy(true);
          void editRule({ action: 'remove', source: rule.source, decision: rule.decision, rule: rule.pattern }).finally(() => setBusy(false));
        }}
      >
        Remove
      </button>
    </li>
  );
}

function AddRule() {
  const [decision, setDecision] = useState<(typeof DECISIONS)[number]>('allow');
  const [source, setSource] = useState<RuleSource>('local');
  const [rule, setRule] = useState('');
  const [busy, setBusy] = useState(false);
  const id = useId();
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!rule.trim()) return;
    setBusy(true);
    if (await editRule({ action: 'add', source, decision, rule: rule.trim() })) setRule('');
    setBusy(false);
  };
  return (
    <form className="add-rule" onSubmit={(e) => void submit(e)} aria-label="Add a rule">
      <label htmlFor={`${id}-d`} className="visually-hidden">
        Decision
      </label>
      <select id={`${id}-d`} value={decision} onChange={(e) => setDecision(e.target.value as (typeof DECISIONS)[number])}>
        {DECISIONS.map((d) => (
          <option key={d} value={d}>
            {d}
          </option>
        ))}
      </select>
      <label htmlFor={`${id}-r`} className="visually-hidden">
        Rule
      </label>
      <input id={`${id}-r`} value={rule} placeholder="e.g. Bash(npm test:*) or Edit(src/**)" spellCheck={false} onChange={(e) => setRule(e.target.value)} />
      <label htmlFor={`${id}-s`} className="visually-hidden">
        Settings file
      </label>
      <select id={`${id}-s`} value={source} onChange={(e) => setSource(e.target.value as RuleSource)}>
        {SOURCES.map((s) => (
          <option key={s.source} value={s.source}>
            {s.label}
          </option>
        ))}
      </select>
      <button type="submit" className="button" disabled={busy || !rule.trim()}>
        Add rule
      </button>
    </form>
  );
}

function Rules() {
  const rules = usePermissions((s) => s.rules);
  if (!rules) return <p className="form-note">Loading rules…</p>;
  return (
    <section className="settings-section" aria-labelledby="rules-h">
      <h4 id="rules-h">Rules</h4>
      <p className="form-note">
        <code>Tool</code> or <code>Tool(argument)</code>: <code>Bash(npm test:*)</code> is that command with any arguments, <code>Edit(src/**)</code> any file
        under src. Deny beats ask beats allow.
      </p>
      {SOURCES.map(({ source, label, note }) => {
        const mine = rules.rules.filter((r) => r.source === source);
        return (
          <div key={source} className="rule-file">
            <div className="rule-file-header">
              <strong>{label}</strong> <span className="form-note">({note})</span>
              <code className="rule-file-path">{rules.files[source]}</code>
            </div>
            {mine.length ? (
              <ul className="rule-list" aria-label={`${label} rules`}>
                {mine.map((r) => (
                  <RuleRow key={`${r.decision}:${r.pattern}:${r.ignored ? 'i' : ''}`} rule={r} />
                ))}
              </ul>
            ) : (
              <p className="form-note">No rules.</p>
            )}
          </div>
        );
      })}
      <AddRule />
      {rules.problems.length ? (
        <div className="form-error" role="alert">
          <strong>Not used:</strong>
          <ul>
            {rules.problems.map((p, i) => (
              <li key={i}>{p.message}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </section>
  );
}

function TrustedFolders() {
  const [folders, setFolders] = useState<TrustedFolder[] | null>(null);
  const workspace = useSettings((s) => s.workspace);
  const trusted = usePermissions((s) => s.rules?.trust.trusted ?? false);
  useEffect(() => {
    void listTrustedFolders().then(setFolders);
  }, [trusted]);
  return (
    <section className="settings-section" aria-labelledby="trust-h">
      <h4 id="trust-h">Trusted folders</h4>
      <p className="form-note">
        Until you trust a folder, its own settings files can only narrow what Deft does: their allow rules and a default mode beyond Ask are not used. Rules you
        add here or with Always allow work without trusting the whole folder.
      </p>
      {!trusted && workspace ? (
        <p className="trust-current">
          This folder (<code>{workspace.path}</code>) is not trusted.{' '}
          <button type="button" className="button" onClick={() => void trustWorkspace()}>
            Trust this folder
          </button>
        </p>
      ) : null}
      {folders === null ? null : folders.length === 0 ? (
        <p className="form-note">No folders yet.</p>
      ) : (
        <ul className="trust-list">
          {folders.map((f) => (
            <li key={f.path}>
              <code className="trust-path" title={f.path}>
                {f.path}
              </code>
              <span className="rule-note">
                {f.trusted ? 'trusted' : `${f.approvedRules.length} approved rule${f.approvedRules.length === 1 ? '' : 's'}`}
                {f.current ? ' · this folder' : ''}
              </span>
              <button
                type="button"
                className="link-button"
                aria-label={`Forget ${f.path}`}
                onClick={() => void forgetFolderTrust(f.path).then((left) => left && setFolders(left))}
              >
                Forget
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Permissions: the default mode, this session's grants, the rules of each settings file with add and remove, and trusted folders. */
export function PermissionsPage() {
  useEffect(() => {
    void loadPermissions();
  }, []);
  return (
    <div className="settings-form">
      <DefaultMode />
      <SessionGrants />
      <Rules />
      <TrustedFolders />
    </div>
  );
}
