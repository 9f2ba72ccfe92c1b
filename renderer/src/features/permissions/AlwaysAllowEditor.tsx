import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { alwaysAllow } from '../../actions/approvals';
import type { PendingApproval } from '../../stores/approvals';

/**
 * "Always allow" proposes the rule to save — a prefix rule such as `Bash(npm test:*)` for a command
 * with arguments, one per part of a compound command — and lets the user edit it first. The core
 * checks that the rules parse and still cover this call.
 */
export function AlwaysAllowEditor({ approval, onCancel }: { approval: PendingApproval; onCancel: () => void }) {
  const proposed = approval.suggestedRules?.length ? approval.suggestedRules : [approval.approvalRule!];
  const [text, setText] = useState(proposed.join('\n'));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  const field = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    field.current?.focus();
    field.current?.select();
  }, []);
  const rules = text
    .split('\n')
    .map((r) => r.trim())
    .filter(Boolean);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!rules.length) return;
    setBusy(true);
    setError(await alwaysAllow(approval.requestId, rules));
    setBusy(false);
  };
  return (
    <form className="rule-editor" onSubmit={(e) => void submit(e)}>
      <label htmlFor={id}>Rule{rules.length > 1 ? 's (one per line)' : ''} to add to .deft/settings.local.json</label>
      <textarea
        id={id}
        ref={field}
        rows={Math.min(4, Math.max(1, rules.length))}
        value={text}
        spellCheck={false}
        onChange={(e) => {
          setText(e.target.value);
          setError(null);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            onCancel();
          }
        }}
      />
      <p className="form-note">
        <code>:*</code> at the end allows any arguments (<code>Bash(npm test:*)</code>). The exact call was <code>{approval.approvalRule}</code>.
      </p>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="rule-editor-actions">
        <button type="submit" className="button button-primary" disabled={busy || !rules.length}>
          Save and allow
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
