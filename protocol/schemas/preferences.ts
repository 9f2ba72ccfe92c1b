import { z } from 'zod';
import { builtOnce } from '../helpers/built-once';

// How the window looks and tells: theme, desktop notifications, and the prices that turn tokens into cost.

/** The schemas of this file, built on first use (preferenceSchemas): a run that validates none of them (the CLI's text turn) never builds them. */
const buildPreferenceSchemas = () => {
  /** The window's colours: the system's choice (prefers-color-scheme), or always light or dark. */
  const ThemePreference = z.enum(['system', 'light', 'dark']);
  const usdPerMillion = z.number().nonnegative().max(100_000);
  /** A model's price in US dollars per million tokens; `cachedInput` for input read from the provider's cache. */
  const ModelPrice = z.object({ input: usdPerMillion, output: usdPerMillion, cachedInput: usdPerMillion.optional() }).strict();
  /** Prices by model name (a name also prices the dated and suffixed variants it starts: `gpt-4.1` prices `gpt-4.1-2025-04-14`). */
  const PriceTable = z.record(z.string().trim().min(1).max(200), ModelPrice).refine((table) => Object.keys(table).length <= 200, 'At most 200 priced models.');
  /** The user's preferences for the window, as the core keeps them (in `<home>/settings.json`, key `preferences`). */
  const Preferences = z.object({
    theme: ThemePreference,
    /** Desktop notifications when a turn ends or something waits while the window is in the background. */
    notifications: z.boolean(),
    /** The price table in force: the user's own once edited, else the built-in one. */
    prices: PriceTable,
    /** Whether `prices` is the user's own table (false: the built-in one). */
    pricesEdited: z.boolean(),
  });
  /** A change to the preferences; omitted fields stay. `prices: null` goes back to the built-in table. */
  const PreferencesInput = z
    .object({ theme: ThemePreference.optional(), notifications: z.boolean().optional(), prices: PriceTable.nullable().optional() })
    .strict();
  /** A desktop notification the window asks its host to show (Electron; the web host's page uses the browser's own). */
  const NotificationInput = z
    .object({ title: z.string().trim().min(1).max(120), body: z.string().max(400), sessionId: z.string().min(1).max(100).optional() })
    .strict();
  return { ThemePreference, ModelPrice, PriceTable, Preferences, PreferencesInput, NotificationInput };
};
export type PreferenceSchemas = ReturnType<typeof buildPreferenceSchemas>;
export const preferenceSchemas: () => PreferenceSchemas = builtOnce(buildPreferenceSchemas);

// The types of the schemas above (each documented at its schema).
export type ThemePreference = z.infer<PreferenceSchemas['ThemePreference']>;
export type ModelPrice = z.infer<PreferenceSchemas['ModelPrice']>;
export type PriceTable = z.infer<PreferenceSchemas['PriceTable']>;
export type Preferences = z.infer<PreferenceSchemas['Preferences']>;
export type PreferencesInput = z.infer<PreferenceSchemas['PreferencesInput']>;
export type NotificationInput = z.infer<PreferenceSchemas['NotificationInput']>;
