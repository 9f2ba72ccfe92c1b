import { ChangeReviewPanel } from '../checkpoints/ChangeReviewPanel';
import { GoalStrip } from '../goals/GoalStrip';
import { ApprovalPanel } from '../permissions/ApprovalPanel';
import { TodoPanel } from '../todo/TodoPanel';

/** Above the composer: the goal, the todo list, and what waits for the user (approvals, change reviews). */
export function Dock() {
  return (
    <div className="dock">
      <GoalStrip />
      <TodoPanel />
      <ApprovalPanel />
      <ChangeReviewPanel />
    </div>
  );
}
