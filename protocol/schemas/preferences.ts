import { z } from 'zod';

// How the window looks and tells: theme, desktop notifications, and the prices that turn tokens into cost.

/** The window's colours: the system's choice (prefers-color-scheme), or always light or dark. */
export const ThemePreference = z.enum(['system', 'light', 'dark']);
export type ThemePreference = z.infer<typeof ThemePreference>;

const usdPerMillion = z.number().nonnegative().max(100_000);

/** A model's price in US dollars per million tokens; `cachedInput` for input read from the provider's cache. */
export const ModelPrice = z.object({ input: usdPerMillion, output: usdPerMillion, cachedInput: usdPerMillion.optional() }).strict();
export type ModelPrice = z.infer<typeof ModelPrice>;

/** Prices by model name (a name also prices the dated and suffixed variants it starts: `gpt-4.1` prices `gpt-4.1-2025-04-14`). */
export const PriceTable = z
  .record(z.string().trim().min(1).max(200), ModelPrice)
  .refine((table) => Object.keys(table).length <= 200, 'At most 200 priced models.');
export type PriceTable = z.infer<typeof PriceTable>;

/** The user's preferences for the window, as the core keeps them (in `<home>/settings.json`, key `preferences`). */
export const Preferences = z.object({
  theme: ThemePreference,
  /** Desktop notifications when a turn ends or something waits while the window is in the background. */
  notifications: z.boolean(),
  /** The price table in force: the user's own once edited, else the built-in one. */
  prices: PriceTable,
  /** Whether `prices` is the user's own table (false: the built-in one). */
  pricesEdited: z.boolean(),
});
export type Preferences = z.infer<typeof Preferences>;

/** A change to the preferences; omitted fields stay. `prices: null` goes back to the built-in table. */
export const PreferencesInput = z
  .object({ theme: ThemePreference.optional(), notifications: z.boolean().optional(), prices: PriceTable.nullable().optional() })
  .strict();
export type PreferencesInput = z.infer<typeof PreferencesInput>;

/** A desktop notification the window asks its host to show (Electron; the web host's page uses the browser's own). */
export const NotificationInput = z
  .object({ title: z.string().trim().min(1).max(120), body: z.string().max(400), sessionId: z.string().min(1).max(100).optional() })
  .strict();
export type NotificationInput = z.infer<typeof NotificationInput>;
