/**
 * How deep JSON containers nest in `value`, counted without recursion (a hostile document thousands of
 * levels deep must not overflow the stack while it is measured); the count stops once it passes `limit`.
 */
export function jsonDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<{ node: unknown; depth: number }> = [{ node: value, depth: 1 }];
  while (stack.length) {
    const { node, depth } = stack.pop()!;
    if (!node || typeof node !== 'object') continue;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(node) ? node : Object.values(node)) if (child && typeof child === 'object') stack.push({ node: child, depth: depth + 1 });
  }
  return deepest;
}

/** Deepest nesting of an MCP tool's input schema Deft accepts (real schemas stay far below it). */
export const MAX_SCHEMA_DEPTH = 128;
