import { create } from 'zustand';
import type { Preferences } from '#protocol';

/** The window preferences as the core keeps them (null until loaded). */
interface PreferencesState {
  preferences: Preferences | null;
  setPreferences(preferences: Preferences): void;
}

export const usePreferences = create<PreferencesState>()((set) => ({
  preferences: null,
  setPreferences: (preferences) => set({ preferences }),
}));
