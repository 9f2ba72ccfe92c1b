import { memo } from 'react';
import type { SteerItem } from '../../stores/queue';
import { Timestamp } from '../conversation/MessageActions';
import './queue.css';

/** A message the user steered into the running turn, where the model read it (before the step it names). */
export const SteerMessage = memo(function SteerMessage({ item }: { item: SteerItem }) {
  return (
    <article className="message message-user message-steer" aria-label="Your steer">
      <div className="user-bubble steer-bubble">
        <span className="steer-label">Steered in before step {item.step}</span>
        <div className="user-text">{item.text}</div>
      </div>
      <div className="message-toolbar" role="toolbar" aria-label="Message actions">
        <Timestamp at={item.at} />
      </div>
    </article>
  );
});
