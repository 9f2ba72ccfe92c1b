import type { SessionConfigOption } from '@agentclientprotocol/sdk';
import type { EffortSetting } from '#protocol';

// The session's model and reasoning effort as ACP config options (the client's selectors): the model as the window's
// model menu sets it (setSessionModel), the effort as its chip does (setSessionEffort).

export const MODEL_OPTION = 'model';
export const EFFORT_OPTION = 'effort';
/** The effort value that means "the settings' default" (null in Deft's command). */
export const DEFAULT_EFFORT = 'default';
const EFFORTS: readonly EffortSetting[] = ['off', 'low', 'medium', 'high', 'max'];

export interface SessionChoices {
  /** The provider's model (what the session uses when it chose none). */
  providerModel: string | null;
  /** The model this session chose, if any. */
  model?: string;
  effort?: EffortSetting;
  /** What the provider lists (may be empty when it lists nothing). */
  models: readonly string[];
}

export function configOptions(choices: SessionChoices): SessionConfigOption[] {
  const current = choices.model ?? choices.providerModel ?? '';
  const models = [...new Set([current, ...(choices.providerModel ? [choices.providerModel] : []), ...choices.models].filter(Boolean))];
  const options: SessionConfigOption[] = [];
  if (models.length) {
    options.push({
      id: MODEL_OPTION,
      name: 'Model',
      category: 'model',
      type: 'select',
      currentValue: current,
      options: models.map((model) => ({ value: model, name: model, ...(model === choices.providerModel ? { description: 'the provider’s model' } : {}) })),
    });
  }
  options.push({
    id: EFFORT_OPTION,
    name: 'Reasoning effort',
    category: 'thought_level',
    type: 'select',
    currentValue: choices.effort ?? DEFAULT_EFFORT,
    options: [{ value: DEFAULT_EFFORT, name: 'Default' }, ...EFFORTS.map((effort) => ({ value: effort, name: effort }))],
  });
  return options;
}

/** Whether `value` is one of the values `option` offers. */
export function offers(options: readonly SessionConfigOption[], id: string, value: unknown): boolean {
  const option = options.find((o) => o.id === id);
  if (!option || option.type !== 'select' || typeof value !== 'string') return false;
  return option.options.some((entry) => ('value' in entry ? entry.value === value : entry.options.some((o) => o.value === value)));
}
