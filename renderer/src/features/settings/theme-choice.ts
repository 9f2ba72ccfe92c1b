import { useEffect, useState } from 'react';

// The small interface the Appearance page is built against: the theme the user chose and the one applied.
// The theme mechanism itself (palettes as CSS variables, the choice kept with the settings for every
// window) belongs to the window's theming work; until it lands, the choice is kept in this window.

export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'deft-theme';
const LIGHT = '(prefers-color-scheme: light)';

function stored(): ThemeChoice {
  const value = localStorage.getItem(KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

function systemLight(): boolean {
  return typeof window.matchMedia === 'function' && window.matchMedia(LIGHT).matches;
}

/** The user's theme choice, what it means now, and how to change it. */
export function useThemeChoice(): { choice: ThemeChoice; applied: 'light' | 'dark'; choose: (choice: ThemeChoice) => void } {
  const [choice, setChoice] = useState(stored);
  const applied = choice === 'system' ? (systemLight() ? 'light' : 'dark') : choice;
  useEffect(() => {
    document.documentElement.dataset.theme = applied;
  }, [applied]);
  return {
    choice,
    applied,
    choose: (next) => {
      localStorage.setItem(KEY, next);
      setChoice(next);
    },
  };
}
