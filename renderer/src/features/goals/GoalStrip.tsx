import type { Goal } from '../../../../protocol';
import { Icon } from '../../components/Icon';
import { setGoalStatus } from '../../actions/goal';
import { useGoal } from '../../stores/goal';

function tokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(n >= 10_000 ? 0 : 1)}k` : String(n);
}

function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** Budget used, against the budget where one is set. */
export function budgetText(goal: Goal): string {
  const { used, budget } = goal;
  return [
    `turn ${used.turns}${budget.turns !== undefined ? `/${budget.turns}` : ''}`,
    `${tokens(used.tokens)}${budget.tokens !== undefined ? `/${tokens(budget.tokens)}` : ''} tokens`,
    `${duration(used.timeMs)}${budget.timeMs !== undefined ? `/${duration(budget.timeMs)}` : ''}`,
  ].join(' · ');
}

const STATUS = { active: 'Active', paused: 'Paused', blocked: 'Blocked', complete: 'Complete' } as const;

/** The session's goal: objective, status, budget used, and Pause / Resume / Cancel. */
export function GoalStrip({ compact = false }: { compact?: boolean }) {
  const goal = useGoal((s) => s.goal);
  if (!goal) return null;
  return (
    <section className={`goal-strip goal-${goal.status}${compact ? ' goal-strip-compact' : ''}`} role="region" aria-label="Goal">
      <span className="goal-label">Goal</span>
      <span className={`goal-status goal-status-${goal.status}`}>{STATUS[goal.status]}</span>
      <span className="goal-objective" title={goal.completionCriterion ? `${goal.objective}\nDone when: ${goal.completionCriterion}` : goal.objective}>
        {goal.objective}
      </span>
      <span className="goal-budget" title={goal.reason ?? ''}>
        {budgetText(goal)}
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
      <button type="button" className="icon-button" aria-label={goal.status === 'complete' ? 'Dismiss goal' : 'Cancel goal'} title={goal.status === 'complete' ? 'Dismiss' : 'Cancel the goal'} onClick={() => void setGoalStatus('cancel')}>
        <Icon name="x" size={14} />
      </button>
      {goal.reason && goal.status !== 'active' && !compact ? <span className="goal-reason">{goal.reason}</span> : null}
    </section>
  );
}
