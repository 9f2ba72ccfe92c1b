import type { PreferencesInput, ThemePreference } from '#protocol';
import { deft } from '../bridge';
import { usePreferences } from '../stores/preferences';
import { attempt } from './attempt';

/** The window preferences, from the core. */
export function loadPreferences(): Promise<void> {
  return attempt(async () => usePreferences.getState().setPreferences(await deft.getPreferences()));
}

/** Change preferences (every window hears of it through preferences.updated). */
export function setPreferences(input: PreferencesInput): Promise<boolean> {
  // The switch and the checkbox answer at once; the core's reply (or preferences.updated) settles it.
  const current = usePreferences.getState().preferences;
  if (current)
    usePreferences.getState().setPreferences({
      ...current,
      ...(input.theme ? { theme: input.theme } : {}),
      ...(input.notifications !== undefined ? { notifications: input.notifications } : {}),
    });
  return attempt(async () => {
    usePreferences.getState().setPreferences(await deft.setPreferences(input));
    return true;
  }, false);
}

/** The theme: 'system' follows the operating system's light or dark setting. */
export const setTheme = (theme: ThemePreference): Promise<boolean> => setPreferences({ theme });
