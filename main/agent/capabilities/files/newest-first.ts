import { statSync } from 'node:fs';
import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** Files stat'ed between yields to the event loop (a few milliseconds of work). */
const BATCH = 1024;

/**
 * Sort items by their file's modification time, newest first (ties by path, so the order is stable).
 * Files that vanished meanwhile sort last. Synchronous stats in batches: several times faster than
 * promise-based ones for thousands of files, and the loop still gets a turn between batches.
 */
export async function newestFirst<T>(items: readonly T[], pathOf: (item: T) => string): Promise<T[]> {
  const times = new Float64Array(items.length);
  for (let start = 0; start < items.length; start += BATCH) {
    if (start > 0) await yieldToLoop();
    const end = Math.min(items.length, start + BATCH);
    for (let i = start; i < end; i++) {
      const stats = statSync(pathOf(items[i]!), { throwIfNoEntry: false });
      times[i] = stats ? stats.mtimeMs : -Infinity;
    }
  }
  const paths = items.map(pathOf);
  const order = items.map((_, i) => i);
  order.sort((a, b) => times[b]! - times[a]! || (paths[a]! < paths[b]! ? -1 : paths[a]! > paths[b]! ? 1 : 0));
  return order.map((i) => items[i]!);
}

/**
 * Modification times gathered while results stream in (so the stats overlap the search), then the
 * paths newest first.
 */
export class MtimeIndex {
  private readonly paths: string[] = [];
  private readonly times: number[] = [];

  add(path: string, absolute: string): void {
    const stats = statSync(absolute, { throwIfNoEntry: false });
    this.paths.push(path);
    this.times.push(stats ? stats.mtimeMs : -Infinity);
  }

  /** `keep` filters (e.g. out secret files) before sorting. */
  newestFirst(keep: (path: string) => boolean = () => true): string[] {
    const order = this.paths.map((_, i) => i).filter((i) => keep(this.paths[i]!));
    order.sort((a, b) => this.times[b]! - this.times[a]! || (this.paths[a]! < this.paths[b]! ? -1 : this.paths[a]! > this.paths[b]! ? 1 : 0));
    return order.map((i) => this.paths[i]!);
  }
}
