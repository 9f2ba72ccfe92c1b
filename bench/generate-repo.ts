import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A synthetic repository for search benchmarks, generated once and reused (it is large). */
export interface GeneratedRepo {
  root: string;
  files: number;
  bytes: number;
  /** Tokens with known frequencies. */
  rare: string;
  common: string;
}

const VERSION = 'v1';
const FILES = 20_000;
const FILE_BYTES = 10_600;
const IGNORED_FILES = 1_000;

/** Deterministic pseudo-random numbers (so every run searches the same tree). */
export function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS = [
  'const',
  'function',
  'return',
  'value',
  'index',
  'items',
  'result',
  'options',
  'config',
  'handler',
  'await',
  'export',
  'import',
  'string',
  'number',
  'object',
  'render',
  'update',
  'state',
  'props',
];

/** A source-like text of about `bytes` bytes: indented lines of a few words. */
export function sourceText(next: () => number, bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const line = `${'  '.repeat(Math.floor(next() * 3))}${Array.from({ length: 4 + Math.floor(next() * 6) }, () => WORDS[Math.floor(next() * WORDS.length)]).join(' ')};`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n') + '\n';
}

function sourceFile(next: () => number, extras: string[]): string {
  const lines: string[] = [];
  let size = 0;
  while (size < FILE_BYTES) {
    const words = Array.from({ length: 4 + Math.floor(next() * 8) }, () => WORDS[Math.floor(next() * WORDS.length)]!);
    const line = `${'  '.repeat(Math.floor(next() * 4))}${words.join(' ')};`;
    lines.push(line);
    size += line.length + 1;
  }
  for (const extra of extras) lines.splice(Math.floor(next() * lines.length), 0, extra);
  return lines.join('\n') + '\n';
}

/**
 * 20,000 source files (~10 KiB each, over 200 MB) in nested folders with a .gitignore that hides a
 * build folder of 1,000 more. About 1 file in 100 contains the rare token, 1 in 4 the common one.
 */
export async function generateRepo(): Promise<GeneratedRepo> {
  const root = join(tmpdir(), `deft-bench-repo-${VERSION}`);
  // Outside the tree, so it is never a search result.
  const marker = `${root}.json`;
  const rare = 'needleRareToken';
  const common = 'sharedCommonToken';
  try {
    const meta = JSON.parse(await readFile(marker, 'utf8')) as GeneratedRepo;
    if ((await stat(join(root, '.gitignore'))).isFile()) {
      await mkdir(join(root, '.git'), { recursive: true });
      return meta;
    }
  } catch {
    await rm(root, { recursive: true, force: true });
  }
  const next = random(42);
  let bytes = 0;
  const exts = ['ts', 'tsx', 'js', 'py', 'go', 'md'];
  for (let i = 0; i < FILES; i++) {
    const dir = join(root, `pkg${i % 40}`, `module${Math.floor(i / 40) % 25}`, `part${i % 7}`);
    await mkdir(dir, { recursive: true });
    const extras = [...(i % 100 === 7 ? [`const ${rare} = ${i};`] : []), ...(i % 4 === 1 ? [`export const ${common} = ${i};`] : [])];
    const content = sourceFile(next, extras);
    bytes += content.length;
    await writeFile(join(dir, `file${i}.${exts[i % exts.length]}`), content);
  }
  for (let i = 0; i < IGNORED_FILES; i++) {
    const dir = join(root, 'dist', `chunk${i % 20}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `out${i}.js`), sourceFile(next, [`const ${rare} = ${i};`]));
  }
  await writeFile(join(root, '.gitignore'), 'dist/\n');
  // A repository root, so plain rg honours the .gitignore too (the benchmark compares like with like).
  await mkdir(join(root, '.git'), { recursive: true });
  const meta: GeneratedRepo = { root, files: FILES, bytes, rare, common };
  await writeFile(marker, JSON.stringify(meta));
  return meta;
}
