import { setPlanMode } from '../../actions/modes';
import { useModes } from '../../stores/modes';

/** Plan mode on/off for the session (also `/plan` in the composer). */
export function PlanToggle() {
  const active = useModes((s) => s.plan?.active ?? false);
  return (
    <button
      type="button"
      className={`chip plan-toggle${active ? ' chip-active' : ''}`}
      aria-pressed={active}
      title={
        active
          ? 'Plan mode is on: Deft investigates read-only and writes a plan for your review. Click to turn it off.'
          : 'Plan first: Deft investigates read-only and asks you to review a plan before changing anything.'
      }
      onClick={() => void setPlanMode(!active)}
    >
      Plan mode
    </button>
  );
}
