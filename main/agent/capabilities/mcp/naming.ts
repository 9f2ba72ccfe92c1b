/** The longest tool name providers accept. */
export const MAX_TOOL_NAME = 64;

/** 32-bit FNV-1a of a string, as 8 hex digits. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** Characters providers accept in a tool name; the rest become `_`. */
export function sanitizeName(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, '_');
}

/**
 * The model-facing name of a server's tool: `mcp__<server>__<tool>`, sanitised, at most 64 characters.
 * A longer name keeps its head and ends in a hash of the whole name, so two long names stay distinct.
 */
export function mcpToolName(server: string, tool: string): string {
  const full = `mcp__${sanitizeName(server)}__${sanitizeName(tool)}`;
  if (full.length <= MAX_TOOL_NAME) return full;
  const hash = fnv1a(`${server}\u0000${tool}`);
  return `${full.slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`;
}

/** The prefix every tool of a server starts with (for rules such as `mcp__github__*`). */
export function mcpToolPrefix(server: string): string {
  return `mcp__${sanitizeName(server)}__`;
}
