import { requestsOf, useApprovals } from '../../stores/approvals';
import { useSessions } from '../../stores/sessions';
import { GoalStrip } from '../goals/GoalStrip';
import { ApprovalPanel } from '../permissions/ApprovalPanel';
import { TodoPanel } from '../todo/TodoPanel';

/**
 * Above the composer: the goal, the todo list, and what waits for the user's approval. It never takes
 * more than about 60 % of the window's height; while an approval waits the goal and the todo list
 * shrink to one line each, so the approval has the room.
 */
export function Dock() {
  const sessionId = useSessions((s) => s.currentId);
  const waiting = useApprovals((s) => requestsOf(s, sessionId).approvals.length > 0);
  return (
    <div className={`dock${waiting ? ' dock-waiting' : ''}`}>
      <GoalStrip compact={waiting} />
      <TodoPanel compact={waiting} />
      <ApprovalPanel />
    </div>
  );
}
