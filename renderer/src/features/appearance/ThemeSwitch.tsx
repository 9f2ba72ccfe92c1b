import type { ThemePreference } from '#protocol';
import { setTheme } from '../../actions/preferences';
import { usePreferences } from '../../stores/preferences';
import { useAppliedTheme } from './theme';
import './appearance.css';

const CHOICES: Array<{ value: ThemePreference; label: string }> = [
  { value: 'system', label: 'System' },
  { value: 'light', label: 'Light' },
  { value: 'dark', label: 'Dark' },
];

/** System / Light / Dark, saved for every window. The Appearance settings page shows it. */
export function ThemeSwitch() {
  const preference = usePreferences((s) => s.preferences?.theme ?? 'system');
  const applied = useAppliedTheme();
  return (
    <div className="theme-switch">
      <div className="segmented segmented-large" role="group" aria-label="Theme">
        {CHOICES.map((choice) => (
          <button key={choice.value} type="button" aria-pressed={preference === choice.value} onClick={() => void setTheme(choice.value)}>
            {choice.label}
          </button>
        ))}
      </div>
      {preference === 'system' ? <span className="form-note">Following the system: {applied} now.</span> : null}
    </div>
  );
}
