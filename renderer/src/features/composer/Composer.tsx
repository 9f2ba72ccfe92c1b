import { useEffect, useRef, useState } from 'react';
import { Icon, Spinner } from '../../components/Icon';
import { cancelTurn, sendPrompt } from '../../stores/actions';
import { useSessions } from '../../stores/sessions';
import { ATTACHABLE_TYPES } from '../files/attachments';
import { AttachmentStrip, DropOverlay } from '../files/AttachmentThumbs';
import { useComposerAttachments } from '../files/use-composer-attachments';

/** The message box: Enter sends, Shift+Enter adds a line, Escape (or Stop) ends a running turn. Images can be dropped, pasted or attached. */
export function Composer() {
  const [text, setText] = useState('');
  const running = useSessions((s) => s.transcript.runningTurn !== null);
  const ref = useRef<HTMLTextAreaElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const images = useComposerAttachments();
  const ready = (text.trim() !== '' || images.attachments.length > 0) && images.pending === 0;

  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${Math.min(el.scrollHeight, 320)}px`;
  }, [text]);

  useEffect(() => {
    const focus = () => ref.current?.focus();
    window.addEventListener('deft:focus-composer', focus);
    return () => window.removeEventListener('deft:focus-composer', focus);
  }, []);

  const submit = async () => {
    if (running || !ready) return;
    const sent = text;
    const attached = images.attachments;
    setText('');
    images.clear();
    if (!(await sendPrompt(sent, attached))) {
      setText(sent);
      for (const a of attached) images.restore(a);
    }
  };

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      {images.dragging ? <DropOverlay /> : null}
      <AttachmentStrip attachments={images.attachments} onRemove={images.remove} label="Attached images" />
      {images.error ? (
        <p className="composer-error" role="alert">
          {images.error}{' '}
          <button type="button" className="link-button" onClick={images.dismissError}>
            Dismiss
          </button>
        </p>
      ) : null}
      <textarea
        ref={ref}
        aria-label="Message"
        placeholder={running ? 'Deft is working… (Esc to stop)' : 'Ask Deft to read, change or explain code…'}
        rows={1}
        value={text}
        autoFocus
        onChange={(e) => setText(e.target.value)}
        onPaste={images.onPaste}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void submit();
          } else if (e.key === 'Escape' && running) {
            e.preventDefault();
            void cancelTurn();
          }
        }}
      />
      <div className="composer-actions">
        <div className="composer-left">
          <button type="button" className="icon-button" aria-label="Attach image" title="Attach image (or drop or paste one)" onClick={() => fileInput.current?.click()}>
            <Icon name="paperclip" size={16} />
          </button>
          <input
            ref={fileInput}
            type="file"
            accept={ATTACHABLE_TYPES.join(',')}
            multiple
            hidden
            data-testid="attach-input"
            onChange={(e) => {
              void images.add([...(e.target.files ?? [])]);
              e.target.value = '';
            }}
          />
          {images.pending ? (
            <span className="composer-hint">
              <Spinner size={12} /> Attaching…
            </span>
          ) : (
            <span className="composer-hint">Enter to send · Shift+Enter for a new line</span>
          )}
        </div>
        {running ? (
          <button type="button" className="button button-stop" onClick={() => void cancelTurn()}>
            <Icon name="stop" size={14} /> Stop
          </button>
        ) : (
          <button type="submit" className="button button-primary" disabled={!ready} aria-label="Send">
            Send <Icon name="send" size={14} />
          </button>
        )}
      </div>
    </form>
  );
}
