import { useEffectiveMode } from './ModeSelect';

const MODE_NAMES = { ask: 'Ask before changes', 'accept-edits': 'Accept edits', yolo: 'Yolo' } as const;

/** On a goal start card: what each way of starting the goal means, with the session's mode named. */
export function GoalModeChoice() {
  const mode = MODE_NAMES[useEffectiveMode()];
  return (
    <dl className="goal-mode-choice" aria-label="How the goal runs">
      <dt>Start goal</dt>
      <dd>
        runs it as usual: <strong>{mode}</strong> decides what asks you first.
      </dd>
      <dt>Start without asking</dt>
      <dd>
        runs its turns in Yolo: nothing asks, except protected paths and plan review (deny rules still block). {mode} is back as soon as the goal stops —
        complete, blocked, out of budget, paused or cancelled.
      </dd>
    </dl>
  );
}
