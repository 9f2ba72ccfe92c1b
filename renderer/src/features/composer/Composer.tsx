import { useEffect, useRef, useState } from 'react';
import { Icon, Spinner } from '../../components/Icon';
import { cancelTurn, sendPrompt } from '../../actions/sessions';
import { useHistory } from '../../stores/history';
import { useTranscript } from '../../stores/transcript';
import { ATTACHABLE_TYPES } from '../files/attachments';
import { AttachmentStrip, DropOverlay } from '../files/AttachmentThumbs';
import { useComposerAttachments } from '../files/use-composer-attachments';
import { ModeSelect } from '../permissions/ModeSelect';
import { PlanToggle } from '../plan/PlanToggle';
import { planCommand } from '../plan/plan-command';
import { runSkill } from '../../actions/skills';
import { useSlashMenu } from '../skills/SlashMenu';
import { contextCommand } from '../context/context-command';
import { ContextHint } from '../context/ContextHint';
import { rewindCommand } from '../checkpoints/rewind-command';

/** The composer's own commands (/plan, /compact, /undo, /rewind, /review): they win over the skills slash menu. */
const composerCommand = (text: string) => planCommand(text) ?? contextCommand(text) ?? rewindCommand(text);

/** The message box: Enter sends, Shift+Enter adds a line, Escape (or Stop) ends a running turn. Images can be dropped, pasted or attached. */
export function Composer() {
  const [text, setText] = useState('');
  const compacting = useHistory((s) => s.compacting !== null);
  const running = useTranscript((s) => s.runningTurn !== null) || compacting;
  const ref = useRef<HTMLTextAreaElement>(null);
  const slash = useSlashMenu(text, setText);
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
    const command = composerCommand(text);
    if (command) {
      setText('');
      if (!(await command.run(running))) setText(text);
      return;
    }
    if (running || !ready) return;
    const sent = text;
    const attached = images.attachments;
    setText('');
    images.clear();
    const skill = attached.length ? null : slash.parse(sent);
    if (!(await (skill ? runSkill(skill.skill.name, skill.args) : sendPrompt(sent, attached)))) {
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
      {slash.menu}
      {slash.hint}
      <ContextHint text={text} />
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
        {...slash.inputProps}
        aria-label="Message"
        placeholder={compacting ? 'Deft is compacting the conversation… (Esc to stop)' : running ? 'Deft is working… (Esc to stop)' : 'Ask Deft to read, change or explain code…'}
        rows={1}
        value={text}
        autoFocus
        onChange={(e) => setText(e.target.value)}
        onPaste={images.onPaste}
        onKeyDown={(e) => {
          // `/plan`, `/compact`, `/undo` and `/rewind` are the composer's own commands: they win over the skills menu.
          if (!(e.key === 'Enter' && composerCommand(text)) && slash.onKeyDown(e)) return;
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
        <div className="composer-controls">
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
          <ModeSelect />
          <PlanToggle />
          {images.pending ? (
            <span className="composer-hint">
              <Spinner size={12} /> Attaching…
            </span>
          ) : (
            <span className="composer-hint" title="/compact [focus]: summarise the conversation to free context · /undo [n]: take back the last turns (files stay) · /rewind: put files and/or the conversation back to a prompt · /review: every change of this session">
              Shift+Enter: new line · / skills · /plan /compact /undo /rewind /review
            </span>
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
