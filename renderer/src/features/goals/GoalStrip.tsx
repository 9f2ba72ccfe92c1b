import type { Goal } from '#protocol';
import { formatDuration, formatTokens } from '#protocol/helpers/units';
import { Icon } from '../../components/Icon';
import { setGoalStatus } from '../../actions/goal';
import { useGoal } from '../../stores/goal';
import { useTranscript } from '../../stores/transcript';
import { useNow } from '../tasks/use-now';

/**
 * Budget used, against the budget where one is set. While a turn works on an active goal it is counted
 * as the turn in progress ("turn 2/40"); otherwise as turns done ("2/40 turns").
 */
export function budgetText(goal: Goal, turnRunning = false): string {
  const { used, budget } = goal;
  const of = budget.turns !== undefined ? `/${budget.turns}` : '';
  return [
    goal.status === 'active' && turnRunning ? `turn ${used.turns + 1}${of}` : `${used.turns}${of} turn${used.turns === 1 && !of ? '' : 's'}`,
    `${formatTokens(used.tokens)}${budget.tokens !== undefined ? `/${formatTokens(budget.tokens)}` : ''} tokens`,
    `${formatDuration(used.timeMs)}${budget.timeMs !== undefined ? `/${formatDuration(budget.timeMs)}` : ''}`,
  ].join(' · ');
}

const STATUS = { active: 'Active', paused: 'Paused', blocked: 'Blocked', complete: 'Complete' } as const;

/** The session's goal: objective, status, budget used, and Pause / Resume / Cancel. */
export function GoalStrip({ compact = false }: { compact?: boolean }) {
  const reported = useGoal((s) => s.goal);
  const reportedAt = useGoal((s) => s.reportedAt);
  const tokensSince = useGoal((s) => s.tokensSince);
  const turnRunning = useTranscript((s) => s.runningTurn !== null);
  const active = reported?.status === 'active';
  const now = useNow(active);
  if (!reported) return null;
  // An active goal's tokens and time run on between the core's reports.
  const goal: Goal = active
    ? { ...reported, used: { ...reported.used, tokens: reported.used.tokens + tokensSince, timeMs: reported.used.timeMs + Math.max(0, now - reportedAt) } }
    : reported;
  return (
    <section className={`goal-strip goal-${goal.status}${compact ? ' goal-strip-compact' : ''}`} role="region" aria-label="Goal">
      <span className="goal-label">Goal</span>
      <span className={`goal-status goal-status-${goal.status}`}>{STATUS[goal.status]}</span>
      {goal.mode === 'yolo' && active ? (
        <span className="goal-mode-badge" title="You started this goal to run without asking: its turns run in Yolo mode until it stops">
          Without asking
        </span>
      ) : null}
      <span className="goal-objective" title={goal.completionCriterion ? `${goal.objective}\nDone when: ${goal.completionCriterion}` : goal.objective}>
        {goal.objective}
      </span>
      <span className="goal-budget" title={goal.reason ?? ''}>
        {budgetText(goal, turnRunning)}
      </span>
      {goal.status === 'active' ? (
        <button type="button" className="button goal-button" onClick={() => void setGoalStatus('pause')}>
          Pause
        </button>
      ) : null}
      {goal.status === 'paused' || goal.status === 'blocked' ? (
        <button type="button" className="button goal-button" onClick={() => void setGoalStatus('resume')}>
          Resume
        </button>
      ) : null}
      <button
        type="button"
        className="icon-button"
        aria-label={goal.status === 'complete' ? 'Dismiss goal' : 'Cancel goal'}
        title={goal.status === 'complete' ? 'Dismiss' : 'Cancel the goal'}
        onClick={() => void setGoalStatus('cancel')}
      >
        <Icon name="x" size={14} />
      </button>
      {goal.reason && goal.status !== 'active' && !compact ? <span className="goal-reason">{goal.reason}</span> : null}
    </section>
  );
}
