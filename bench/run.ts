// `npm run bench`: run every bench/*.bench.ts and print one table of figures beside their baselines.
import { readdir } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import type { BenchResult } from './types';

const only = process.argv.slice(2);
const dir = import.meta.dirname;
const files = (await readdir(dir)).filter((f) => f.endsWith('.bench.ts') && (!only.length || only.some((o) => f.includes(o)))).sort();
const rows: BenchResult[] = [];
for (const file of files) {
  process.stderr.write(`running ${file}…\n`);
  const mod = (await import(pathToFileURL(join(dir, file)).href)) as { default: () => Promise<BenchResult[]> };
  try {
    rows.push(...(await mod.default()));
  } catch (error) {
    process.stderr.write(`  ${file} failed: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  }
}

const fmt = (v: number, unit: string) => `${v >= 100 ? v.toFixed(0) : v.toFixed(2)} ${unit}`;
const table = rows.map((r) => ({
  benchmark: r.name,
  value: fmt(r.value, r.unit),
  baseline: `${fmt(r.baseline.value, r.unit)} (${r.baseline.name})`,
  ratio: r.baseline.value ? `${(r.value / r.baseline.value).toFixed(2)}×` : '—',
  note: r.note ?? '',
}));
const columns = ['benchmark', 'value', 'baseline', 'ratio', 'note'] as const;
const widths = columns.map((c) => Math.max(c.length, ...table.map((row) => row[c].length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log(line([...columns]));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of table) console.log(line(columns.map((c) => row[c])));
