/** One line of the benchmark table: a measurement beside a baseline measured in the same run. */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  baseline: { name: string; value: number };
  /** Extra figures worth printing (memory, counts). */
  note?: string;
}

export async function median(runs: number, fn: () => Promise<number>): Promise<number> {
  const values: number[] = [];
  for (let i = 0; i < runs; i++) values.push(await fn());
  values.sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)]!;
}
