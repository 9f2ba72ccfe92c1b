import { type FormEvent, type KeyboardEvent, useState } from 'react';
import type { QuestionAnswer } from '#protocol';
import { Dialog } from '../../components/Dialog';
import { type PendingQuestion, requestsOf, useApprovals } from '../../stores/approvals';
import { answerQuestion } from '../../actions/approvals';
import { useSessions } from '../../stores/sessions';
import './questions.css';

interface Draft {
  selected: string[];
  otherOn: boolean;
  other: string;
}

function Questions({ pending }: { pending: PendingQuestion }) {
  const [drafts, setDrafts] = useState<Draft[]>(() => pending.questions.map(() => ({ selected: [], otherOn: false, other: '' })));
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const update = (index: number, change: (d: Draft) => Draft) => {
    setDrafts((all) => all.map((d, i) => (i === index ? change(d) : d)));
    setError('');
  };

  const send = async (dismissed: boolean) => {
    const answers: QuestionAnswer[] = pending.questions.map((q, i) => {
      const d = drafts[i]!;
      return { question: q.question, selected: d.selected, ...(d.otherOn && d.other.trim() ? { other: d.other.trim() } : {}) };
    });
    if (!dismissed) {
      const missing = pending.questions.find((_, i) => !answers[i]!.selected.length && !answers[i]!.other);
      if (missing) {
        setError(`Answer “${missing.question}” — pick an option or write your own.`);
        return;
      }
    }
    setBusy(true);
    const refused = await answerQuestion(pending.requestId, dismissed ? [] : answers, dismissed);
    setBusy(false);
    if (refused) setError(refused);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void send(false);
  };

  /**
   * Number keys choose: 1–9 pick that option of the question holding the focus (the first question when
   * none does); the number after the last option goes to "Other". Typing in a text field is left alone.
   */
  const pickByNumber = (e: KeyboardEvent<HTMLFormElement>) => {
    if (e.ctrlKey || e.metaKey || e.altKey || !/^[1-9]$/.test(e.key)) return;
    const target = e.target as HTMLElement;
    if (target instanceof HTMLInputElement && target.type === 'text') return;
    const fieldset = target.closest('fieldset') ?? e.currentTarget.querySelector('fieldset');
    const inputs = fieldset ? [...fieldset.querySelectorAll<HTMLInputElement>('input')] : [];
    const input = inputs[Number(e.key) - 1];
    if (!input) return;
    e.preventDefault();
    input.focus();
    if (input.type !== 'text') input.click();
  };

  const title = pending.questions.length === 1 ? 'Deft has a question' : `Deft has ${pending.questions.length} questions`;
  return (
    <Dialog
      title={title}
      onClose={() => void send(true)}
      closeOnBackdrop={false}
      beneathOpen
      initialFocus=".questions input"
      footer={
        <>
          <button type="button" className="button button-ghost" disabled={busy} onClick={() => void send(true)}>
            Skip (dismiss)
          </button>
          <button type="submit" form={`questions-${pending.requestId}`} className="button button-primary" disabled={busy}>
            Submit answers
          </button>
        </>
      }
    >
      <form id={`questions-${pending.requestId}`} className="questions" onSubmit={submit} onKeyDown={pickByNumber}>
        {pending.questions.map((q, index) => {
          const d = drafts[index]!;
          const name = `q-${pending.requestId}-${index}`;
          const type = q.multiSelect ? 'checkbox' : 'radio';
          return (
            <fieldset key={q.question} className="question">
              <legend>
                {q.header ? <span className="question-header">{q.header}</span> : null}
                <span className="question-text">{q.question}</span>
                {q.multiSelect ? <span className="question-hint">Choose any</span> : null}
              </legend>
              {q.options.map((o, n) => (
                <label key={o.label} className="question-option">
                  <input
                    type={type}
                    name={name}
                    checked={d.selected.includes(o.label)}
                    onChange={(e) =>
                      update(index, (draft) =>
                        q.multiSelect
                          ? { ...draft, selected: e.target.checked ? [...draft.selected, o.label] : draft.selected.filter((l) => l !== o.label) }
                          : { ...draft, selected: [o.label], otherOn: false },
                      )
                    }
                  />
                  <span>
                    <span className="option-label">
                      {n < 9 ? (
                        <kbd className="option-key" aria-hidden="true">
                          {n + 1}
                        </kbd>
                      ) : null}
                      {o.label}
                    </span>
                    {o.description ? <span className="option-description">{o.description}</span> : null}
                  </span>
                </label>
              ))}
              <label className="question-option question-other">
                <input
                  type={type}
                  name={name}
                  aria-label="Other"
                  checked={d.otherOn}
                  onChange={(e) =>
                    update(index, (draft) => (q.multiSelect ? { ...draft, otherOn: e.target.checked } : { ...draft, selected: [], otherOn: true }))
                  }
                />
                <input
                  type="text"
                  className="other-input"
                  aria-label={`Your own answer to: ${q.question}`}
                  placeholder="Other: write your own answer"
                  value={d.other}
                  onChange={(e) => {
                    const value = e.target.value;
                    update(index, (draft) => ({
                      ...draft,
                      other: value,
                      otherOn: value.trim() !== '',
                      selected: q.multiSelect || !value.trim() ? draft.selected : [],
                    }));
                  }}
                />
              </label>
            </fieldset>
          );
        })}
        {error ? (
          <p className="form-error" role="alert">
            {error}
          </p>
        ) : null}
      </form>
    </Dialog>
  );
}

/** The model's questions (AskUserQuestion), answered with the mouse or the keyboard; Escape or Skip dismisses them. */
export function QuestionDialog() {
  const sessionId = useSessions((s) => s.currentId);
  const pending = useApprovals((s) => requestsOf(s, sessionId).questions[0]);
  if (!pending) return null;
  return <Questions key={pending.requestId} pending={pending} />;
}
