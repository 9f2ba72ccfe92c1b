import { useThemeChoice } from '../theme-choice';

const CHOICES = [
  { value: 'system', label: 'System', note: 'Light or dark, as the operating system is set.' },
  { value: 'light', label: 'Light', note: '' },
  { value: 'dark', label: 'Dark', note: '' },
] as const;

/** The theme: follow the system, or always light or dark. */
export function AppearancePage() {
  const { choice, applied, choose } = useThemeChoice();
  return (
    <div className="settings-form">
      <fieldset className="choice-group">
        <legend>Theme</legend>
        {CHOICES.map((c) => (
          <label key={c.value} className="choice">
            <input type="radio" name="theme" value={c.value} checked={choice === c.value} onChange={() => choose(c.value)} />
            <span>
              <strong>{c.label}</strong>
              {c.note ? <span className="form-note"> {c.note}</span> : null}
            </span>
          </label>
        ))}
      </fieldset>
      <p className="form-note">Now showing the {applied} theme.</p>
    </div>
  );
}
