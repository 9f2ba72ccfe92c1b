export const MAX_UNDO = 100;

export type ContextCommand = { kind: 'compact'; instructions: string } | { kind: 'undo'; count: number } | { kind: 'invalid'; message: string };

/** `/compact [instructions]` and `/undo [n]`; null for any other text. */
export function parseContextCommand(text: string): ContextCommand | null {
  const trimmed = text.trim();
  const compact = /^\/compact(?:\s+([\s\S]*))?$/.exec(trimmed);
  if (compact) return { kind: 'compact', instructions: compact[1]?.trim() ?? '' };
  const undo = /^\/undo(?:\s+([\s\S]*))?$/.exec(trimmed);
  if (!undo) return null;
  const arg = undo[1]?.trim() ?? '';
  if (!arg) return { kind: 'undo', count: 1 };
  const count = /^\d+$/.test(arg) ? Number(arg) : NaN;
  if (!Number.isInteger(count) || count < 1 || count > MAX_UNDO) {
    return { kind: 'invalid', message: `Usage: /undo [n] — n is how many turns to undo, 1 to ${MAX_UNDO} ("${arg.slice(0, 40)}" is not).` };
  }
  return { kind: 'undo', count };
}
