import { memo } from 'react';
import { Icon, Spinner } from '../../components/Icon';
import type { AssistantItem, NoticeItem, UserItem } from '../../stores/transcript';
import { AttachmentStrip } from '../files/AttachmentThumbs';
import { PromptText } from '../files/PromptText';
import { Markdown } from './Markdown';

export const UserMessage = memo(function UserMessage({ item }: { item: UserItem }) {
  return (
    <article className="message message-user" aria-label="Your message">
      <div className="user-bubble">
        <div className="user-text">
          <PromptText text={item.text} mentions={item.mentions} />
        </div>
        <AttachmentStrip attachments={item.attachments} label="Images sent with this message" />
      </div>
    </article>
  );
});

export const AssistantMessage = memo(function AssistantMessage({ item }: { item: AssistantItem }) {
  return (
    <article className="message message-assistant" aria-label="Assistant message" aria-busy={item.streaming}>
      {item.thinking ? (
        <details className="thinking">
          <summary>
            <Icon name="brain" size={14} /> {item.streaming && !item.text ? 'Thinking…' : 'Thought'}
            <span className="thinking-size">{item.thinking.length.toLocaleString()} chars</span>
          </summary>
          <div className="thinking-text">{item.thinking}</div>
        </details>
      ) : null}
      {item.text ? <Markdown text={item.text} /> : item.streaming && !item.thinking ? <Spinner /> : null}
    </article>
  );
});

export const Notice = memo(function Notice({ item }: { item: NoticeItem }) {
  return (
    <div className={`notice notice-${item.level}`} role="status">
      {item.level !== 'info' ? <Icon name="alert" size={14} /> : null}
      <span>{item.text}</span>
    </div>
  );
});
