import { z } from 'zod';
import { type EffortSetting, effortSettingSchema } from '#protocol/schemas/session';
import { builtOnce } from '#protocol/helpers/built-once';

/** `"effort": {"default": LEVEL, "models": {"<model>": LEVEL}}` in `<home>/settings.json`. */
const stored = builtOnce(() => {
  const EffortSetting = effortSettingSchema();
  return z.object({ default: EffortSetting.optional(), models: z.record(z.string(), EffortSetting).optional() });
});

/** The effort the settings give `model` (its own entry, else the default); undefined when they give none or cannot be read. */
export function effortFor(settings: Record<string, unknown>, model: string): EffortSetting | undefined {
  const parsed = stored().safeParse(settings.effort);
  if (!parsed.success) return undefined;
  return parsed.data.models?.[model] ?? parsed.data.default;
}
