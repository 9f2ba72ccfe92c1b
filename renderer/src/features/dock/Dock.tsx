import { requestsOf, useApprovals } from '../../stores/approvals';
import { useCheckpoints } from '../../stores/checkpoints';
import { useSessions } from '../../stores/sessions';
import { ChangeReviewPanel } from '../checkpoints/ChangeReviewPanel';
import { QueuedMessages } from '../composer/QueuedMessages';
import { GoalStrip } from '../goals/GoalStrip';
import { ApprovalPanel } from '../permissions/ApprovalPanel';
import { TodoPanel } from '../todo/TodoPanel';
import './dock.css';

/**
 * Above the composer: the goal, the todo list, what waits for the user (approvals, change reviews), and the messages
 * typed while a turn runs (queued, or steers not delivered yet).
 * It never takes more than about 60 % of the window's height; while an approval or a change review
 * waits the goal and the todo list shrink to one line each, so it has the room.
 */
export function Dock() {
  const sessionId = useSessions((s) => s.currentId);
  const approval = useApprovals((s) => requestsOf(s, sessionId).approvals.length > 0);
  const review = useCheckpoints((s) => s.reviews.length > 0);
  const waiting = approval || review;
  return (
    <div className={`dock${waiting ? ' dock-waiting' : ''}`}>
      <GoalStrip compact={waiting} />
      <TodoPanel compact={waiting} />
      <ApprovalPanel />
      <ChangeReviewPanel />
      <QueuedMessages />
    </div>
  );
}
