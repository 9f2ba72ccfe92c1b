import type { PermissionMode } from '#protocol';
import { setPermissionMode } from '../../actions/modes';
import { usePermissions } from '../../stores/permissions';
import { useModes } from '../../stores/modes';

const MODES: Array<{ mode: PermissionMode; label: string; hint: string }> = [
  { mode: 'ask', label: 'Ask before changes', hint: 'Read-only tools run; edits, commands and the rest ask first.' },
  { mode: 'accept-edits', label: 'Accept edits', hint: 'Edits inside the workspace run without asking; commands still ask.' },
  { mode: 'yolo', label: 'Yolo', hint: 'Everything runs without asking, except deny rules and protected paths.' },
];

export function useEffectiveMode(): PermissionMode {
  const mode = useModes((s) => s.permission);
  const fallback = usePermissions((s) => s.defaultMode);
  return mode ?? fallback;
}

/** The session's permission mode, switchable at any time (the model is told). */
export function ModeSelect() {
  const mode = useEffectiveMode();
  const current = MODES.find((m) => m.mode === mode)!;
  return (
    <select
      className={`mode-select mode-${mode}`}
      aria-label="Permission mode"
      title={current.hint}
      value={mode}
      onChange={(e) => void setPermissionMode(e.target.value as PermissionMode)}
    >
      {MODES.map((m) => (
        <option key={m.mode} value={m.mode}>
          {m.label}
        </option>
      ))}
    </select>
  );
}
