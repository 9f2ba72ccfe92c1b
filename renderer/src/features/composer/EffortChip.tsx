import type { EffortSetting } from '#protocol';
import { setSessionEffort } from '../../actions/sessions';
import { useSessions } from '../../stores/sessions';

const LEVELS: ReadonlyArray<{ value: EffortSetting; label: string }> = [
  { value: 'off', label: 'Thinking off' },
  { value: 'low', label: 'Effort: low' },
  { value: 'medium', label: 'Effort: medium' },
  { value: 'high', label: 'Effort: high' },
  { value: 'max', label: 'Effort: max' },
];

/**
 * Beside the model chip: how hard the model thinks in this session's next turns (OpenAI's reasoning_effort, Anthropic's
 * thinking budget). "Default" follows the settings; a server that refuses the field is asked without it, with a note.
 */
export function EffortChip() {
  const effort = useSessions((s) => s.sessions.find((x) => x.id === s.currentId)?.effort ?? '');
  return (
    <select
      className={`mode-select effort-select${effort ? ' effort-chosen' : ''}`}
      aria-label="Reasoning effort"
      title="How hard the model thinks in this session (models that do not offer it are asked without it)"
      value={effort}
      onChange={(e) => void setSessionEffort(e.target.value ? (e.target.value as EffortSetting) : null)}
    >
      <option value="">Effort: default</option>
      {LEVELS.map((level) => (
        <option key={level.value} value={level.value}>
          {level.label}
        </option>
      ))}
    </select>
  );
}
