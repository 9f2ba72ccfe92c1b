import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { Attachment, Mention } from '#protocol';
import { Icon, Spinner } from '../../components/Icon';
import { queuePrompt } from '../../actions/queue';
import { cancelTurn, sendPrompt } from '../../actions/sessions';
import { useHistory } from '../../stores/history';
import { useTranscript } from '../../stores/transcript';
import { ATTACHABLE_TYPES } from '../files/attachments';
import { AttachmentStrip, DropOverlay } from '../files/AttachmentThumbs';
import { useComposerAttachments } from '../files/use-composer-attachments';
import { ModeSelect } from '../permissions/ModeSelect';
import { PlanToggle } from '../plan/PlanToggle';
import { runMcpPrompt } from '../../actions/mcp';
import { runSkill } from '../../actions/skills';
import { mcpPromptCall, useMcpPromptCommands } from '../mcp/prompt-commands';
import { useSlashMenu } from '../skills/SlashMenu';
import { ContextHint } from '../context/ContextHint';
import { MemoryLineDialog } from '../memory/MemoryLineDialog';
import { BUILTIN_COMMANDS, composerCommand } from './commands';
import { useMentionMenu } from './MentionMenu';
import { MentionText } from './MentionText';
import { EffortChip } from './EffortChip';
import { ModelChip } from './ModelChip';
import { type ActiveMention, insertMention, mentionsIn } from './mentions';
import { usePromptHistory } from './use-prompt-history';
import './composer.css';

/**
 * The message box: Enter sends, Shift+Enter adds a line, Escape (or Stop) ends a running turn. While a turn runs the
 * box stays usable: Enter queues the message for the next turn, Ctrl+Enter (or Steer) delivers it into the running
 * turn at its next step (QueuedMessages shows both until they are sent). `@`
 * mentions a workspace file (shown as a chip; the model is told to Read it), `/` lists commands and
 * skills (/plan, /compact, /undo, /rewind, /changes, /model are the composer's own), ↑/↓ recall earlier
 * prompts. Images dropped, pasted or attached go with the prompt; other dropped files are mentioned
 * like workspace files.
 */
export function Composer() {
  const [text, setText] = useState('');
  const [caret, setCaret] = useState(0);
  const [mentions, setMentions] = useState<Mention[]>([]);
  // Bumped when what was typed is sent: the box is a new element (see the textarea's key).
  const [sentCount, setSentCount] = useState(0);
  const compacting = useHistory((s) => s.compacting !== null);
  const running = useTranscript((s) => s.runningTurn !== null) || compacting;
  const ref = useRef<HTMLTextAreaElement>(null);
  const mcpPrompts = useMcpPromptCommands();
  const own = useMemo(() => [...BUILTIN_COMMANDS, ...mcpPrompts], [mcpPrompts]);
  const slash = useSlashMenu(text, setText, own);
  const history = usePromptHistory(text, (prompt) => {
    setText(prompt.text);
    if (prompt.mentions.length) setMentions((list) => [...list.filter((m) => !prompt.mentions.some((p) => p.label === m.label)), ...prompt.mentions]);
  });
  const fileInput = useRef<HTMLInputElement>(null);

  // The caret goes after the chip in the commit that shows it, before any later key press is handled (a frame later,
  // on a busy page, the next letter typed was already in and the caret went back before it).
  const pendingCaret = useRef<number | null>(null);
  /** Put a chip for `path` where the `@query` (or the caret) is. */
  const mention = useCallback((label: string, path: string, at?: ActiveMention) => {
    setMentions((list) => [...list.filter((m) => m.label !== label), { label, path }]);
    const box = ref.current;
    setText((current) => {
      const where = at ?? { start: box?.selectionStart ?? current.length, end: box?.selectionEnd ?? current.length, query: '' };
      // A chip dropped in the middle of a word gets a space before it.
      const before = where.start > 0 && !/\s/.test(current[where.start - 1]!) ? ' ' : '';
      const next = insertMention(
        current.slice(0, where.start) + before + current.slice(where.start),
        { ...where, start: where.start + before.length, end: where.end + before.length },
        label,
      );
      pendingCaret.current = next.caret;
      return next.text;
    });
  }, []);
  useLayoutEffect(() => {
    const at = pendingCaret.current;
    const box = ref.current;
    if (at === null || !box) return;
    pendingCaret.current = null;
    box.focus();
    box.setSelectionRange(at, at);
    setCaret(at);
  }, [text]);
  const files = useComposerAttachments(useCallback((a: Attachment) => mention(a.name, a.path), [mention]));
  const picker = useMentionMenu(text, caret, (active, path) => mention(path, path, active));
  const ready = (text.trim() !== '' || files.attachments.length > 0) && files.pending === 0;

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

  const [queueError, setQueueError] = useState<string | null>(null);

  /** While a turn runs: the text waits for the next turn, or (`steer`) for the running turn's next step. */
  const queue = async (steer: boolean) => {
    if (!text.trim()) return;
    if (files.attachments.length) {
      setQueueError('Images go with a prompt of their own: send this one when the turn ends, or Stop it first.');
      return;
    }
    const sent = text;
    setText('');
    setSentCount((n) => n + 1);
    setMentions([]);
    setQueueError(null);
    if (!(await queuePrompt(sent, steer))) setText(sent);
  };

  const submit = async (steer = false) => {
    const command = composerCommand(text);
    if (command) {
      setText('');
      setSentCount((n) => n + 1);
      if (!(await command.run(running))) setText(text);
      return;
    }
    if (running) return queue(steer);
    if (!ready) return;
    const sent = text;
    const attached = files.attachments;
    const mentioned = mentionsIn(sent, mentions);
    setText('');
    setSentCount((n) => n + 1);
    setMentions([]);
    files.clear();
    const prompt = attached.length || mentioned.length ? null : mcpPromptCall(sent, mcpPrompts);
    const skill = prompt || attached.length || mentioned.length ? null : slash.parse(sent);
    const started = prompt ? runMcpPrompt(prompt.command, prompt.args) : skill ? runSkill(skill.skill.name, skill.args) : sendPrompt(sent, attached, mentioned);
    if (!(await started)) {
      setText(sent);
      setMentions(mentioned);
      for (const a of attached) files.restore(a);
    }
  };

  const trackCaret = (el: HTMLTextAreaElement) => setCaret(el.selectionStart);
  const labels = mentions.map((m) => m.label);

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      {picker.menu ?? slash.menu}
      <MemoryLineDialog />
      {slash.hint}
      <ContextHint text={text} />
      {files.dragging ? <DropOverlay /> : null}
      <AttachmentStrip attachments={files.attachments} onRemove={files.remove} label="Attached images" />
      {queueError ? (
        <p className="composer-error" role="alert">
          {queueError}{' '}
          <button type="button" className="link-button" onClick={() => setQueueError(null)}>
            Dismiss
          </button>
        </p>
      ) : null}
      {files.error ? (
        <p className="composer-error" role="alert">
          {files.error}{' '}
          <button type="button" className="link-button" onClick={files.dismissError}>
            Dismiss
          </button>
        </p>
      ) : null}
      <div className="composer-input">
        <MentionText text={text} labels={labels} textarea={ref} />
        {/* A new box for each message: the browser keeps every edit typed into a text field for its undo
            (Ctrl+Z cannot reach them once the box is cleared), about 1.5 KiB and two DOM nodes a sent message
            until the element goes. autoFocus keeps the focus in the box. */}
        <textarea
          key={sentCount}
          ref={ref}
          {...slash.inputProps}
          {...(picker.open ? picker.inputProps : {})}
          aria-label="Message"
          placeholder={
            compacting
              ? 'Deft is compacting the conversation… (Enter queues a message, Esc stops)'
              : running
                ? 'Deft is working… Enter queues a message, Ctrl+Enter steers it into this turn, Esc stops'
                : 'Ask Deft to read, change or explain code… (@ for files, / for commands)'
          }
          rows={1}
          value={text}
          autoFocus
          onChange={(e) => {
            setText(e.target.value);
            trackCaret(e.target);
          }}
          onSelect={(e) => trackCaret(e.currentTarget)}
          onPaste={files.onPaste}
          onKeyDown={(e) => {
            if (picker.onKeyDown(e)) return;
            // `/plan`, `/compact`, `/undo`, `/rewind`, `/changes` and `/model` are the composer's own commands: they win over the skills menu.
            if (!(e.key === 'Enter' && composerCommand(text)) && slash.onKeyDown(e)) return;
            if (history.onKeyDown(e)) return;
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              void submit(running && (e.ctrlKey || e.metaKey));
            } else if (e.key === 'Escape' && running) {
              e.preventDefault();
              void cancelTurn();
            }
          }}
        />
      </div>
      <div className="composer-actions">
        <div className="composer-controls">
          <button
            type="button"
            className="icon-button"
            aria-label="Attach image"
            title="Attach image (or drop or paste one; drop any other file to mention it)"
            onClick={() => fileInput.current?.click()}
          >
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
              void files.add([...(e.target.files ?? [])]);
              e.target.value = '';
            }}
          />
          <ModeSelect />
          <PlanToggle />
          <ModelChip />
          <EffortChip />
          {files.pending ? (
            <span className="composer-hint">
              <Spinner size={12} /> Attaching…
            </span>
          ) : (
            <span
              className="composer-hint"
              title="@ mentions a file · / lists commands and skills (/rewind puts files and/or the conversation back to a prompt, /changes shows every change) · ↑ recalls earlier prompts · Shift+Enter: new line"
            >
              @ files · / commands · ↑ earlier prompts
            </span>
          )}
        </div>
        {running ? (
          <div className="composer-run-actions">
            <button
              type="button"
              className="button"
              disabled={!text.trim()}
              title="Deliver this message into the running turn at its next step (Ctrl+Enter)"
              onClick={() => void submit(true)}
            >
              Steer
            </button>
            <button type="button" className="button button-stop" onClick={() => void cancelTurn()}>
              <Icon name="stop" size={14} /> Stop
            </button>
          </div>
        ) : (
          <button type="submit" className="button button-primary" disabled={!ready} aria-label="Send">
            Send <Icon name="send" size={14} />
          </button>
        )}
      </div>
    </form>
  );
}
