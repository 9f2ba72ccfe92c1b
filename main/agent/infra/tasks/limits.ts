import { SettingsStore } from '../settings/settings-store';

/** Background tasks one session may run at once, unless `"tasks": {"maxRunning": N}` in ~/.deft/settings.json says otherwise. */
export const DEFAULT_MAX_RUNNING_TASKS = 32;
export const MAX_RUNNING_SETTING = '"tasks": {"maxRunning": N} in ~/.deft/settings.json';

/** The cap on running background tasks per session, from the user's settings (a positive whole number). */
export async function maxRunningTasks(home: string): Promise<number> {
  const raw = (await new SettingsStore(home).readRaw().catch((): Record<string, unknown> => ({}))).tasks as { maxRunning?: unknown } | undefined;
  const value = raw?.maxRunning;
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 ? value : DEFAULT_MAX_RUNNING_TASKS;
}
