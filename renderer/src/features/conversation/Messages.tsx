import { memo, useState } from 'react';
import { Icon, Spinner } from '../../components/Icon';
import { resendTurn } from '../../actions/messages';
import { retryNow } from '../../actions/sessions';
import type { AssistantItem, NoticeItem, UserItem } from '../../stores/transcript';
import { promptRowId, rowById } from '../../stores/rows';
import { useTranscript } from '../../stores/transcript';
import { useUi } from '../../stores/ui';
import { ForkHereButton, RewindHereButton } from '../checkpoints/RewindHereButton';
import { AttachmentStrip } from '../files/AttachmentThumbs';
import { PromptText } from '../files/PromptText';
import { useNow } from '../tasks/use-now';
import { Markdown } from './Markdown';
import { useLiveAnswer } from './shown-rows';
import { CopyButton, Timestamp, ToolbarButton } from './MessageActions';
import { SETTINGS_CODES, headlineFor } from './provider-errors';

/** The prompt of a turn, for Retry (the user's text and images, as sent). */
function useTurnPrompt(turnId: string | undefined): UserItem | undefined {
  return useTranscript((s) => {
    const row = turnId ? rowById(s.items, promptRowId(turnId)) : undefined;
    return row?.kind === 'user' ? row : undefined;
  });
}

const RETRY_TITLE = 'Send this prompt again (the latest turn is replaced; files it changed stay changed)';

/** Your message: Copy, Edit & resend, Retry and the time on hover or focus; editing happens in place. */
export const UserMessage = memo(function UserMessage({ item }: { item: UserItem }) {
  const running = useTranscript((s) => s.runningTurn !== null);
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(item.text);
  const resend = (text: string) => void resendTurn(item.turnId, text, item.attachments).then((sent) => sent && setEditing(false));
  if (editing) {
    return (
      <article className="message message-user" aria-label="Your message">
        <form
          className="user-bubble user-edit"
          onSubmit={(e) => {
            e.preventDefault();
            if (draft.trim()) resend(draft);
          }}
        >
          <textarea
            aria-label="Edit your message"
            value={draft}
            autoFocus
            rows={Math.min(12, Math.max(2, draft.split('\n').length))}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                e.preventDefault();
                setEditing(false);
              } else if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                if (draft.trim()) resend(draft);
              }
            }}
          />
          <div className="user-edit-actions">
            <button type="button" className="button button-small" onClick={() => setEditing(false)}>
              Cancel
            </button>
            <button type="submit" className="button button-small button-primary" disabled={!draft.trim() || running}>
              Send
            </button>
          </div>
        </form>
      </article>
    );
  }
  return (
    <article className="message message-user" aria-label="Your message">
      <div className="user-bubble">
        <div className="user-text">
          <PromptText text={item.text} mentions={item.mentions} />
        </div>
        <AttachmentStrip attachments={item.attachments} label="Images sent with this message" />
      </div>
      <div className="message-toolbar" role="toolbar" aria-label="Message actions">
        <Timestamp at={item.at} />
        <RewindHereButton turnId={item.turnId} text={item.text} />
        <ForkHereButton turnId={item.turnId} text={item.text} />
        <CopyButton text={item.text} />
        <ToolbarButton
          icon="edit"
          label="Edit this message"
          title="Edit & resend"
          disabled={running}
          onClick={() => {
            setDraft(item.text);
            setEditing(true);
          }}
        />
        <ToolbarButton icon="retry" label="Retry" title={RETRY_TITLE} disabled={running} onClick={() => resend(item.text)} />
      </div>
    </article>
  );
});

/** "Thinking… 3 s" while it reasons, then "Thought for 4 s". */
function ThinkingLabel({ item }: { item: AssistantItem }) {
  const thinking = item.streaming && item.thinkingUntil === undefined;
  const now = useNow(thinking);
  const from = item.thinkingFrom;
  const seconds = from === undefined ? null : Math.max(1, Math.round(((item.thinkingUntil ?? now) - from) / 1000));
  if (thinking) return <>Thinking…{seconds !== null ? ` ${seconds} s` : ''}</>;
  return <>{seconds !== null ? `Thought for ${seconds} s` : 'Thought'}</>;
}

/**
 * An answer: reasoning (folded), the text, and Copy / Retry and the time on hover or focus. `live`: the
 * open session's row, whose streamed text this follows from the store (the list renders it only when
 * something else about it changes).
 */
export const AssistantMessage = memo(function AssistantMessage({ item: given, live = false }: { item: AssistantItem; live?: boolean }) {
  const item = useLiveAnswer(given, live);
  const running = useTranscript((s) => s.runningTurn !== null);
  const prompt = useTurnPrompt(item.turnId);
  return (
    <article className="message message-assistant" aria-label="Assistant message" aria-busy={item.streaming}>
      {item.thinking ? (
        <details className="thinking">
          <summary>
            <Icon name="brain" size={14} /> <ThinkingLabel item={item} />
            <span className="thinking-size">{item.thinking.length.toLocaleString()} chars</span>
          </summary>
          <div className="thinking-text">{item.thinking}</div>
        </details>
      ) : null}
      {item.text ? <Markdown text={item.text} /> : item.streaming && !item.thinking ? <Spinner /> : null}
      {item.text && !item.streaming ? (
        <div className="message-toolbar" role="toolbar" aria-label="Answer actions">
          <CopyButton text={item.text} />
          {prompt ? <ForkHereButton turnId={prompt.turnId} text={prompt.text} /> : null}
          {prompt ? (
            <ToolbarButton
              icon="retry"
              label="Retry"
              title={RETRY_TITLE}
              disabled={running}
              onClick={() => void resendTurn(prompt.turnId, prompt.text, prompt.attachments)}
            />
          ) : null}
          <Timestamp at={item.at} />
        </div>
      ) : null}
    </article>
  );
});

/** A model call that failed for a moment: why, a countdown to the next attempt, and Retry now. */
function RetryNotice({ item, retry }: { item: NoticeItem; retry: NonNullable<NoticeItem['retry']> }) {
  const running = useTranscript((s) => s.runningTurn === item.turnId);
  const now = useNow(running);
  const seconds = Math.ceil((retry.at - now) / 1000);
  const waiting = running && seconds > 0;
  const attempt = `attempt ${retry.attempt} of ${retry.maxAttempts}`;
  const status = waiting ? `Retrying in ${seconds} s (${attempt}).` : running ? `Retrying (${attempt})…` : `Retried (${attempt}).`;
  return (
    <div className={`notice notice-${running ? 'warning' : 'info'} notice-actionable`} role="status">
      {running ? <Icon name="alert" size={14} /> : null}
      <span className="notice-text">
        {/[.!?…]$/.test(item.text) ? item.text : `${item.text}.`} {status}
      </span>
      {waiting ? (
        <div className="notice-actions">
          <button type="button" className="button button-small" onClick={() => void retryNow()}>
            <Icon name="retry" size={13} /> Retry now
          </button>
        </div>
      ) : null}
    </div>
  );
}

/** A turn's error, shown once, where it happened: what went wrong, Retry (no retyping), and Open Settings when that is the fix. */
function ErrorNotice({ item }: { item: NoticeItem }) {
  const running = useTranscript((s) => s.runningTurn !== null);
  const prompt = useTurnPrompt(item.turnId);
  return (
    <div className="notice notice-error notice-actionable" role="alert">
      <Icon name="alert" size={14} />
      <div className="notice-text">
        <strong>{headlineFor(item.code)}</strong>
        <span>{item.text}</span>
      </div>
      <div className="notice-actions">
        {prompt ? (
          <button
            type="button"
            className="button button-small"
            disabled={running}
            title={RETRY_TITLE}
            onClick={() => void resendTurn(prompt.turnId, prompt.text, prompt.attachments)}
          >
            <Icon name="retry" size={13} /> Retry
          </button>
        ) : null}
        {SETTINGS_CODES.has(item.code ?? '') ? (
          <button type="button" className="button button-small" onClick={() => useUi.getState().openSettings(true, 'provider')}>
            Open Settings
          </button>
        ) : null}
      </div>
    </div>
  );
}

export const Notice = memo(function Notice({ item }: { item: NoticeItem }) {
  if (item.level === 'error') return <ErrorNotice item={item} />;
  if (item.retry) return <RetryNotice item={item} retry={item.retry} />;
  return (
    <div className={`notice notice-${item.level}`} role="status">
      {item.level !== 'info' ? <Icon name="alert" size={14} /> : null}
      <span>{item.text}</span>
    </div>
  );
});
