import { type FormEvent, useId, useState } from 'react';
import type { HookEventName, RuleSource } from '#protocol';
import { hookEventNames, toolHookEventNames } from '#protocol/helpers/names';
import { addHook } from '../../actions/settings-pages';

const SOURCES: Array<{ source: RuleSource; label: string }> = [
  { source: 'user', label: 'Your settings (every workspace)' },
  { source: 'local', label: 'Project, yours (not shared)' },
  { source: 'project', label: 'Project, shared' },
];

/** Add a hook command to one settings file (a workspace's once the folder is trusted). */
export function AddHook({ trusted }: { trusted: boolean }) {
  const [event, setEvent] = useState<HookEventName>('PreToolUse');
  const [matcher, setMatcher] = useState('');
  const [command, setCommand] = useState('');
  const [source, setSource] = useState<RuleSource>('user');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = useId();
  const locked = source !== 'user' && !trusted;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!command.trim()) return setError('A hook needs a command.');
    setBusy(true);
    const done = await addHook({ source, event, matcher: toolHookEventNames.has(event) ? matcher.trim() : '', command: command.trim() });
    setBusy(false);
    setError(done.ok ? null : done.message);
    if (done.ok) {
      setCommand('');
      setMatcher('');
    }
  };
  return (
    <form className="add-hook" onSubmit={(e) => void submit(e)} aria-labelledby={`${id}-h`}>
      <h4 id={`${id}-h`}>Add a hook</h4>
      <div className="add-hook-row">
        <label htmlFor={`${id}-e`}>Event</label>
        <select id={`${id}-e`} value={event} onChange={(e) => setEvent(e.target.value as HookEventName)}>
          {hookEventNames.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
        {toolHookEventNames.has(event) ? (
          <>
            <label htmlFor={`${id}-m`}>Tools</label>
            <input
              id={`${id}-m`}
              value={matcher}
              placeholder="Bash|Write (empty: every tool)"
              spellCheck={false}
              onChange={(e) => setMatcher(e.target.value)}
            />
          </>
        ) : null}
      </div>
      <label htmlFor={`${id}-c`}>Command</label>
      <textarea
        id={`${id}-c`}
        className="add-hook-command"
        rows={2}
        value={command}
        placeholder="e.g. ~/.deft/hooks/check.sh (reads the event as JSON on stdin; exit 2 blocks)"
        spellCheck={false}
        onChange={(e) => {
          setCommand(e.target.value);
          setError(null);
        }}
      />
      <div className="add-hook-row">
        <label htmlFor={`${id}-s`}>Save in</label>
        <select id={`${id}-s`} value={source} onChange={(e) => setSource(e.target.value as RuleSource)}>
          {SOURCES.map((s) => (
            <option key={s.source} value={s.source}>
              {s.label}
            </option>
          ))}
        </select>
        <button type="submit" className="button" disabled={busy || locked || !command.trim()}>
          Add hook
        </button>
      </div>
      {locked ? <p className="form-note">Trust this folder (Permissions) to add hooks to its own files.</p> : null}
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  );
}
