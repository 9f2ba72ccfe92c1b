import type { Environment } from '#contract/environment';

const byTimeThenPath = (paths: readonly string[], times: ArrayLike<number>) => (a: number, b: number) =>
  times[b]! - times[a]! || (paths[a]! < paths[b]! ? -1 : paths[a]! > paths[b]! ? 1 : 0);

/**
 * Sort items by their file's modification time, newest first (ties by path, so the order is stable).
 * Files that vanished meanwhile sort last. The times come in one batch from the environment (one round
 * trip on a remote machine, not one per file).
 */
export async function newestFirst<T>(environment: Environment, items: readonly T[], pathOf: (item: T) => string): Promise<T[]> {
  const paths = items.map(pathOf);
  const times = await environment.mtimes(paths);
  const order = items.map((_, i) => i);
  order.sort(byTimeThenPath(paths, times));
  return order.map((i) => items[i]!);
}

/** Paths asked about in the first batch while results stream in; each later batch is twice the one before. */
const FIRST_BATCH = 1024;

/**
 * Modification times gathered while results stream in (a batch at a time, so the stats overlap the search),
 * then the paths newest first. Batches double in size, so a remote machine answers a few of them (one script each,
 * see SshEnvironment.mtimes) whatever the number of results.
 */
export class MtimeIndex {
  private readonly paths: string[] = [];
  private pending: string[] = [];
  private batchSize = FIRST_BATCH;
  private readonly batches: Promise<Float64Array>[] = [];

  constructor(private readonly environment: Environment) {}

  add(path: string, absolute: string): void {
    this.paths.push(path);
    this.pending.push(absolute);
    if (this.pending.length >= this.batchSize) {
      this.flush();
      this.batchSize *= 2;
    }
  }

  private flush(): void {
    if (!this.pending.length) return;
    const size = this.pending.length;
    const batch = this.environment.mtimes(this.pending);
    // Looked at only once every batch is in; a failed batch sorts its files last rather than failing the search.
    this.batches.push(batch.catch(() => new Float64Array(size).fill(-Infinity)));
    this.pending = [];
  }

  /** `keep` filters (e.g. out secret files) before sorting. */
  async newestFirst(keep: (path: string) => boolean = () => true): Promise<string[]> {
    this.flush();
    const times = new Float64Array(this.paths.length);
    let at = 0;
    for (const batch of await Promise.all(this.batches)) {
      times.set(batch.subarray(0, Math.min(batch.length, times.length - at)), at);
      at += batch.length;
    }
    const order = this.paths.map((_, i) => i).filter((i) => keep(this.paths[i]!));
    order.sort(byTimeThenPath(this.paths, times));
    return order.map((i) => this.paths[i]!);
  }
}
