import { useEffect, useState } from 'react';
import type { ThemePreference } from '#protocol';
import { usePreferences } from '../../stores/preferences';

export type Theme = 'light' | 'dark';

/** The last theme applied, so the next start paints in it before the core has answered. */
const CACHE_KEY = 'deft-theme';
const LIGHT_QUERY = '(prefers-color-scheme: light)';

/** The theme a preference means now ('system': what the operating system prefers; dark when it says nothing). */
export function resolveTheme(preference: ThemePreference, systemLight: boolean): Theme {
  if (preference === 'system') return systemLight ? 'light' : 'dark';
  return preference;
}

function systemPrefersLight(): boolean {
  return typeof window.matchMedia === 'function' && window.matchMedia(LIGHT_QUERY).matches;
}

function apply(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
}

/** Before the first render: the cached preference, else the system's theme. */
export function applyInitialTheme(): void {
  const cached = localStorage.getItem(CACHE_KEY);
  const preference: ThemePreference = cached === 'light' || cached === 'dark' ? cached : 'system';
  apply(resolveTheme(preference, systemPrefersLight()));
}

/** Whether the operating system prefers light colours, followed live. */
function useSystemLight(): boolean {
  const [light, setLight] = useState(systemPrefersLight);
  useEffect(() => {
    if (typeof window.matchMedia !== 'function') return;
    const query = window.matchMedia(LIGHT_QUERY);
    const onChange = () => setLight(query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);
  return light;
}

/** The theme in force: the user's choice, or the system's, followed live. Applies it to the document. */
export function useAppliedTheme(): Theme {
  const preference = usePreferences((s) => s.preferences?.theme);
  const systemLight = useSystemLight();
  const cached = localStorage.getItem(CACHE_KEY);
  const effective: ThemePreference = preference ?? (cached === 'light' || cached === 'dark' ? cached : 'system');
  const theme = resolveTheme(effective, systemLight);
  useEffect(() => {
    apply(theme);
    if (preference) localStorage.setItem(CACHE_KEY, preference);
  }, [theme, preference]);
  return theme;
}
