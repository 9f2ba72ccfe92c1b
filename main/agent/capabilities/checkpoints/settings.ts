import { z } from 'zod';
import { builtOnce } from '#protocol/helpers/built-once';
import { SettingsStore } from '#infra/settings/settings-store';
import { DEFAULT_MAX_FILE_BYTES } from './store/store';

/** The store of one workspace is kept under this many bytes; the oldest checkpoints of deleted sessions go first. */
export const DEFAULT_LIMIT_BYTES = 2 * 1024 ** 3;

/** Built the first time the settings are read. */
const storedSchema = builtOnce(() =>
  z.object({
    enabled: z.boolean().optional(),
    limitBytes: z.number().int().positive().optional(),
    maxFileBytes: z.number().int().positive().optional(),
  }),
);

export interface CheckpointSettings {
  enabled: boolean;
  limitBytes: number;
  maxFileBytes: number;
}

/** `"checkpoints": {"enabled", "limitBytes", "maxFileBytes"}` in `<home>/settings.json`; anything unreadable falls back to the defaults. */
export async function readCheckpointSettings(home: string): Promise<CheckpointSettings> {
  const parsed = storedSchema().safeParse((await new SettingsStore(home).readRaw()).checkpoints);
  const stored = parsed.success ? parsed.data : {};
  return { enabled: stored.enabled ?? true, limitBytes: stored.limitBytes ?? DEFAULT_LIMIT_BYTES, maxFileBytes: stored.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES };
}

export async function writeCheckpointSettings(home: string, patch: Partial<CheckpointSettings>): Promise<CheckpointSettings> {
  const settings = new SettingsStore(home);
  const current = storedSchema().safeParse((await settings.readRaw()).checkpoints);
  await settings.update('checkpoints', { ...(current.success ? current.data : {}), ...patch });
  return readCheckpointSettings(home);
}
