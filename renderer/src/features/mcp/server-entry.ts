export type ServerEntry = { name: string; definition: Record<string, unknown> } | { error: string };

const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value);
const isDefinition = (value: unknown): boolean => isObject(value) && ('command' in value || 'url' in value);

/**
 * The JSON typed or pasted for a server, read as its name and definition. With `unwrap`, a pasted
 * `{"mcpServers": {"name": {...}}}` or `{"name": {...}}` entry works too (its name is used when none is given).
 * The core checks the definition itself when it is saved.
 */
export function readServerEntry(json: string, name: string, unwrap: boolean): ServerEntry {
  let definition: unknown;
  try {
    definition = JSON.parse(json);
  } catch (e) {
    return { error: `The definition is not valid JSON: ${(e as Error).message}` };
  }
  let entryName = name.trim();
  if (unwrap && isObject(definition) && !isDefinition(definition)) {
    const entries = Object.entries(isObject(definition.mcpServers) ? definition.mcpServers : definition);
    const only = entries.length === 1 ? entries[0]! : null;
    if (only && isDefinition(only[1])) [entryName, definition] = [entryName || only[0], only[1]];
  }
  if (!entryName) return { error: 'Give the server a name.' };
  if (!isObject(definition)) return { error: 'The definition must be a JSON object.' };
  return { name: entryName, definition };
}
