import { stat } from 'node:fs/promises';

const CONCURRENCY = 32;

/**
 * Sort items by their file's modification time, newest first (ties by path, so the order is stable).
 * Files that vanished meanwhile sort last.
 */
export async function newestFirst<T>(items: readonly T[], pathOf: (item: T) => string): Promise<T[]> {
  const times = new Float64Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        times[index] = (await stat(pathOf(items[index]!))).mtimeMs;
      } catch {
        times[index] = -Infinity;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
  const order = items.map((_, i) => i);
  order.sort((a, b) => times[b]! - times[a]! || (pathOf(items[a]!) < pathOf(items[b]!) ? -1 : 1));
  return order.map((i) => items[i]!);
}
