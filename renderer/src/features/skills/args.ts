/** One value as a command-line word the core's tokenizer reads back unchanged (double quotes, `\"` and `\\` escaped). */
export function quoteArg(value: string): string {
  if (value === '') return '""';
  return /[\s"'\\]/.test(value) ? `"${value.replace(/["\\]/g, '\\$&')}"` : value;
}

/** Named field values → an argument string, positions kept (empty middle values become ""), trailing empties dropped. */
export function joinArgs(values: readonly string[]): string {
  const trimmed = values.map((v) => v.trim());
  while (trimmed.length && trimmed[trimmed.length - 1] === '') trimmed.pop();
  return trimmed.map(quoteArg).join(' ');
}
