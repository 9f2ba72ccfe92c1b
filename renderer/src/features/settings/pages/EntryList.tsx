import { type FormEvent, useId, useState } from 'react';

/**
 * An editable list of one-line entries (paths, domains): each with Remove, and a field to add one. `check` says
 * what is wrong with an entry before it is sent (the core checks again); `save` sends the whole new list.
 */
export function EntryList({
  label,
  entries,
  placeholder,
  disabled,
  check,
  save,
}: {
  label: string;
  entries: readonly string[];
  placeholder: string;
  disabled: boolean;
  check: (entry: string) => string | null;
  save: (next: string[]) => Promise<boolean>;
}) {
  const [draft, setDraft] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  const send = async (next: string[]) => {
    setBusy(true);
    const ok = await save(next);
    setBusy(false);
    return ok;
  };
  const add = async (e: FormEvent) => {
    e.preventDefault();
    const entry = draft.trim();
    const why = !entry ? 'An entry cannot be empty.' : entries.includes(entry) ? `${entry} is in the list already.` : check(entry);
    setProblem(why);
    if (why) return;
    if (await send([...entries, entry])) setDraft('');
  };
  return (
    <div className="entry-list">
      {entries.length ? (
        <ul className="rule-list" aria-label={label}>
          {entries.map((entry) => (
            <li key={entry} className="rule-row">
              <code className="rule-pattern">{entry}</code>
              <button
                type="button"
                className="link-button"
                disabled={busy || disabled}
                aria-label={`Remove ${entry} from ${label}`}
                onClick={() => void send(entries.filter((e) => e !== entry))}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="form-note">None in this file.</p>
      )}
      <form className="add-rule" onSubmit={(e) => void add(e)} aria-label={`Add to ${label}`}>
        <label htmlFor={id} className="visually-hidden">
          {`New entry for ${label}`}
        </label>
        <input
          id={id}
          value={draft}
          placeholder={placeholder}
          spellCheck={false}
          disabled={disabled}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? `${id}-e` : undefined}
          onChange={(e) => {
            setDraft(e.target.value);
            setProblem(null);
          }}
        />
        <button type="submit" className="button" disabled={busy || disabled || !draft.trim()}>
          Add
        </button>
      </form>
      {problem ? (
        <p id={`${id}-e`} className="form-error" role="alert">
          {problem}
        </p>
      ) : null}
    </div>
  );
}
