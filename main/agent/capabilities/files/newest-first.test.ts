import { describe, expect, it } from 'vitest';
import type { Environment } from '#contract/environment';
import { MtimeIndex, newestFirst } from './newest-first';

/** An environment whose files' times come from a table, counting the batches asked for. */
function timesFrom(table: Map<string, number>) {
  const batches: number[] = [];
  const environment = {
    mtimes: async (paths: readonly string[]) => (batches.push(paths.length), Float64Array.from(paths, (p) => table.get(p) ?? -Infinity)),
  } as unknown as Environment;
  return { environment, batches };
}

describe('newest first', () => {
  it('asks for the times of 5,000 streamed results in three doubling batches, and sorts as one batch would', async () => {
    const table = new Map<string, number>();
    const names = Array.from({ length: 5_000 }, (_, i) => `f${i}`);
    for (const [i, name] of names.entries()) if (i % 7) table.set(`/w/${name}`, ((i * 131) % 977) * 1000);
    const { environment, batches } = timesFrom(table);
    const index = new MtimeIndex(environment);
    for (const name of names) index.add(name, `/w/${name}`);
    const sorted = await index.newestFirst((name) => name !== 'f1');
    expect(batches).toEqual([1024, 2048, 1928]);
    const once = await newestFirst(environment, names, (name) => `/w/${name}`);
    expect(sorted).toEqual(once.filter((name) => name !== 'f1'));
    // Missing files last, ties by path.
    expect(sorted.at(-1)).toBe(
      [...names]
        .filter((_, i) => i % 7 === 0)
        .sort()
        .at(-1),
    );
  });

  it('sorts a failed batch last rather than failing', async () => {
    let call = 0;
    const environment = {
      mtimes: async (paths: readonly string[]) => (call++ === 0 ? Promise.reject(new Error('gone')) : Float64Array.from(paths, () => 5)),
    } as unknown as Environment;
    const index = new MtimeIndex(environment);
    for (let i = 0; i < 1_100; i++) index.add(`p${String(i).padStart(4, '0')}`, `/w/${i}`);
    const sorted = await index.newestFirst();
    expect(sorted.slice(0, 76)).toEqual(Array.from({ length: 76 }, (_, i) => `p${String(1024 + i).padStart(4, '0')}`));
  });
});
