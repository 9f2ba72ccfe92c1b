import { z } from 'zod';
import type { AppEvent, NotificationInput, Preferences } from '#protocol';
import { preferenceSchemas } from '#protocol/schemas/preferences';
import { builtOnce } from '#protocol/helpers/built-once';
import { DEFAULT_PRICES } from '#protocol/helpers/prices';
import type { CommandHandlers } from '#contract/commands';
import { SettingsStore } from '#infra/settings/settings-store';

/** The `preferences` part of `<home>/settings.json`; a damaged field falls back to its default alone. */
const storedSchema = builtOnce(() =>
  z.object({
    theme: preferenceSchemas().ThemePreference.catch('system'),
    notifications: z.boolean().catch(true),
    prices: preferenceSchemas().PriceTable.optional().catch(undefined),
  }),
);

export interface PreferencesOptions {
  home: string;
  emit(event: AppEvent): void;
  /** Show a desktop notification (Electron); absent where the host has none. */
  notify?: (notification: NotificationInput) => Promise<boolean>;
}

/** The window's preferences (theme, notifications, prices), kept with the settings so every window and host shares them. */
export function preferencesCommands(options: PreferencesOptions): Pick<CommandHandlers, 'getPreferences' | 'setPreferences' | 'showNotification'> {
  const store = new SettingsStore(options.home);
  const read = async () => storedSchema().parse((await store.readRaw()).preferences ?? {});
  const view = (stored: z.infer<ReturnType<typeof storedSchema>>): Preferences => ({
    theme: stored.theme,
    notifications: stored.notifications,
    prices: stored.prices ?? DEFAULT_PRICES,
    pricesEdited: stored.prices !== undefined,
  });
  return {
    getPreferences: async () => view(await read()),
    setPreferences: async (input) => {
      const stored = await read();
      const next = {
        theme: input.theme ?? stored.theme,
        notifications: input.notifications ?? stored.notifications,
        ...(input.prices === null ? {} : input.prices ? { prices: input.prices } : stored.prices ? { prices: stored.prices } : {}),
      };
      await store.update('preferences', next);
      const preferences = view(next);
      options.emit({ type: 'preferences.updated', preferences });
      return preferences;
    },
    showNotification: async (notification) => ({ shown: options.notify ? await options.notify(notification) : false }),
  };
}
