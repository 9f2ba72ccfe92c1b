import { type FormEvent, useCallback, useEffect, useId, useRef, useState } from 'react';
import { DeftError } from '#protocol/helpers/bridge';
import { Icon, Spinner } from '../../components/Icon';
import { setSessionModel } from '../../actions/sessions';
import { listModels } from '../../actions/settings';
import { useSessions } from '../../stores/sessions';
import { useSettings } from '../../stores/settings';
import '../settings/provider-form.css';

/** The model the open session's next turn uses, and the provider's. */
export function useSessionModel(): { model: string | null; own: boolean; provider: string | null } {
  const provider = useSettings((s) => s.settings?.provider?.model ?? null);
  const own = useSessions((s) => s.sessions.find((x) => x.id === s.currentId)?.model ?? null);
  return { model: own ?? provider, own: own !== null, provider };
}

/** Open the model chip's menu from elsewhere (the /model command). */
export const openModelMenu = () => window.dispatchEvent(new Event('deft:model-menu'));

/**
 * The model chip under the message box: which model the next turn uses; click to pick another from the
 * provider's list or type one. The choice belongs to this session; the provider's model stays the default.
 */
export function ModelChip() {
  const { model, own, provider } = useSessionModel();
  const [open, setOpen] = useState(false);
  const chip = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const show = () => setOpen(true);
    window.addEventListener('deft:model-menu', show);
    return () => window.removeEventListener('deft:model-menu', show);
  }, []);
  const close = useCallback((refocus: boolean) => {
    setOpen(false);
    if (refocus) chip.current?.focus();
  }, []);
  return (
    <div className="model-picker">
      <button
        ref={chip}
        type="button"
        className={`chip model-switch${own ? ' chip-active' : ''}`}
        aria-haspopup="dialog"
        aria-expanded={open}
        title={own ? `This session uses ${model} (the provider's model is ${provider})` : `The provider's model; click to use another for this session`}
        onClick={() => setOpen(!open)}
      >
        <span className="visually-hidden">Model: </span>
        <span className="model-switch-name">{model ?? 'no model'}</span>
        <Icon name="chevron" size={10} className="model-switch-chevron" />
      </button>
      {open ? <ModelMenu current={model} own={own} provider={provider} onClose={close} /> : null}
    </div>
  );
}

function ModelMenu({
  current,
  own,
  provider,
  onClose,
}: {
  current: string | null;
  own: boolean;
  provider: string | null;
  onClose: (refocus: boolean) => void;
}) {
  const [models, setModels] = useState<string[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [typed, setTyped] = useState('');
  const ref = useRef<HTMLDivElement>(null);
  const title = useId();
  const input = useId();

  useEffect(() => {
    listModels().then(setModels, (e: unknown) => {
      setModels([]);
      setError(DeftError.from(e).detail);
    });
    ref.current?.querySelector<HTMLElement>('input, button')?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.stopPropagation();
        onClose(true);
      }
    };
    const onDown = (e: MouseEvent) => {
      if (ref.current && !ref.current.parentElement?.contains(e.target as Node)) onClose(false);
    };
    document.addEventListener('keydown', onKey, true);
    document.addEventListener('mousedown', onDown);
    return () => {
      document.removeEventListener('keydown', onKey, true);
      document.removeEventListener('mousedown', onDown);
    };
  }, [onClose]);

  const pick = async (model: string | null) => {
    if (await setSessionModel(model)) onClose(true);
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (typed.trim()) void pick(typed.trim());
  };
  return (
    <div className="model-menu" role="dialog" aria-labelledby={title} ref={ref}>
      <h3 id={title}>Model for this session</h3>
      <form className="model-menu-typed" onSubmit={submit}>
        <label htmlFor={input} className="visually-hidden">
          Model name
        </label>
        <input id={input} value={typed} placeholder="Type a model name…" spellCheck={false} autoComplete="off" onChange={(e) => setTyped(e.target.value)} />
        <button type="submit" className="button button-small" disabled={!typed.trim()}>
          Use
        </button>
      </form>
      {models === null ? (
        <p className="form-note">
          <Spinner size={10} /> Asking the provider for its models…
        </p>
      ) : null}
      {error ? <p className="form-note">The provider did not list its models ({error}); type one above.</p> : null}
      {models?.length ? (
        <ul className="model-menu-list" aria-label="Models the provider offers">
          {models
            .filter((m) => !typed.trim() || m.toLowerCase().includes(typed.trim().toLowerCase()))
            .map((m) => (
              <li key={m}>
                <button
                  type="button"
                  className={`model-option${m === current ? ' model-option-selected' : ''}`}
                  aria-pressed={m === current}
                  onClick={() => void pick(m)}
                >
                  {m}
                  {m === provider ? <span className="model-default"> · provider default</span> : null}
                </button>
              </li>
            ))}
        </ul>
      ) : null}
      {own && provider ? (
        <button type="button" className="link-button" onClick={() => void pick(null)}>
          Back to the provider&apos;s model ({provider})
        </button>
      ) : null}
    </div>
  );
}
