import { lstatSync, readdirSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { deflateSync } from 'node:zlib';
import { defaultCapabilities } from '../main/agent/capabilities';
import { runGit } from '../main/agent/capabilities/checkpoints/store/git';
import { CheckpointStore } from '../main/agent/capabilities/checkpoints/store/store';
import { createHarness, tempDir } from '../test-support/harness';
import { callChunk, textReply, toolStep } from '../test-support/mock-steps';
import { random, sourceText } from './generate-repo';
import type { BenchResult } from './types';

// Checkpoints: what a checkpoint costs when little changed on a large workspace (beside a bare stat of every
// file), when much changed, a restore, the storage a checkpoint adds, and what checkpoints add to a whole
// agent turn and to the store over many turns on a workspace of a few thousand files.

const RUNS = 7;
const BIG_FILES = 20_000;
const TURN_FILES = 3_000;
const GROWTH_TURNS = 40;

/** `files` files in nested folders (50 per folder), plus a .gitignore'd build folder of 500 more. */
async function fillWorkspace(root: string, files: number, bytes: number, seed: number): Promise<string[]> {
  const next = random(seed);
  const paths: string[] = [];
  for (let i = 0; i < files; i++) paths.push(`src/m${Math.floor(i / 1000)}/d${Math.floor(i / 50) % 20}/f${i}.ts`);
  for (const dir of new Set(paths.map((p) => p.slice(0, p.lastIndexOf('/'))))) await mkdir(join(root, dir), { recursive: true });
  for (let i = 0; i < paths.length; i += 200) await Promise.all(paths.slice(i, i + 200).map((p) => writeFile(join(root, p), sourceText(next, bytes))));
  await mkdir(join(root, 'build'), { recursive: true });
  for (let i = 0; i < 500; i++) await writeFile(join(root, 'build', `out${i}.js`), sourceText(next, bytes));
  await writeFile(join(root, '.gitignore'), 'build/\n');
  return paths;
}

/** The large workspace, generated once per machine and reused (the bench only changes files it puts back). */
async function bigWorkspace(): Promise<{ root: string; paths: string[] }> {
  const root = join(tmpdir(), 'deft-bench-checkpoints-v1');
  const marker = join(root, '.bench-complete');
  const paths = Array.from({ length: BIG_FILES }, (_, i) => `src/m${Math.floor(i / 1000)}/d${Math.floor(i / 50) % 20}/f${i}.ts`);
  if (
    await stat(marker).then(
      () => true,
      () => false,
    )
  )
    return { root, paths };
  await rm(root, { recursive: true, force: true });
  await fillWorkspace(root, BIG_FILES, 2_000, 7);
  await writeFile(marker, '');
  return { root, paths };
}

/** Every file and folder under `root` (the .gitignore'd ones too: a stat pass does not know about ignores). */
function entriesOf(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      out.push(path);
      if (e.isDirectory()) walk(path);
    }
  };
  walk(root);
  return out;
}

/**
 * A bare stat pass: lstat of every entry, the list already known (as git knows it from its index),
 * synchronously, so what is measured is the system calls and not a promise per file.
 */
function statPass(entries: readonly string[]): number {
  const t0 = performance.now();
  for (const path of entries) lstatSync(path);
  return performance.now() - t0;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function storeFigures(): Promise<BenchResult[]> {
  const { root, paths } = await bigWorkspace();
  const home = await tempDir('deft-bench-cp-home-');
  const originals = new Map<string, Buffer>();
  const change = async (list: string[], round: number) => {
    for (const p of list) {
      if (!originals.has(p)) originals.set(p, await readFile(join(root, p)));
      await writeFile(join(root, p), `${originals.get(p)!.toString('utf8')}// change ${round}\n`);
    }
  };
  try {
    const store = await CheckpointStore.open(home, root);
    const checkpoint = () => store.locked(async () => store.record(await store.capture(), { session: 'bench', kind: 'step' }));
    const firstMs = await timed(checkpoint);
    const firstBytes = await store.sizeBytes();

    const entries = entriesOf(root);
    const one = [paths[1234]!];
    const oneMs: number[] = [];
    const statMs: number[] = [];
    const added: number[] = [];
    let round = 0;
    for (let i = 0; i < RUNS; i++) {
      await change(one, ++round);
      statMs.push(statPass(entries));
      const size = await store.sizeBytes();
      oneMs.push(await timed(checkpoint));
      added.push((await store.sizeBytes()) - size);
    }
    // A step of Write/Edit calls: only the files they wrote are looked at.
    const narrowedMs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      await change(one, ++round);
      narrowedMs.push(await timed(() => store.locked(async () => store.record(await store.capture(one), { session: 'bench', kind: 'step' }))));
    }
    const changedFile = await readFile(join(root, one[0]!));
    const deflated = deflateSync(changedFile).length;

    const thousand = paths.filter((_, i) => i % 20 === 3).slice(0, 1_000);
    const thousandMs: number[] = [];
    for (let i = 0; i < 3; i++) {
      await change(thousand, ++round);
      thousandMs.push(await timed(checkpoint));
    }

    // Restore: the 1,000 files back to the first checkpoint, beside writing the same bytes directly.
    const first = (await store.list('bench'))[0]!;
    const restoreMs: number[] = [];
    const writeMs: number[] = [];
    for (let i = 0; i < 3; i++) {
      await change(thousand, ++round);
      restoreMs.push(await timed(() => store.locked(() => store.restore(first.tree, thousand))));
      writeMs.push(await timed(() => Promise.all(thousand.map((p) => writeFile(join(root, p), originals.get(p)!)))));
    }
    const intact = (await Promise.all(thousand.map(async (p) => (await readFile(join(root, p))).equals(originals.get(p)!)))).every(Boolean);
    if (!intact) throw new Error('restore did not put the files back byte for byte');
    // Every object and ref the checkpoints wrote (most of them in-process) is one git accepts.
    await runGit(null, ['--git-dir', store.places.gitDir, 'fsck', '--strict', '--no-dangling']);
    return [
      {
        name: `checkpoint, 1 file changed (${BIG_FILES.toLocaleString('en')} files)`,
        value: median(oneMs),
        unit: 'ms',
        baseline: { name: `bare lstat of all ${entries.length.toLocaleString('en')} entries`, value: median(statMs) },
        note: `goal ≤ 150 ms; first checkpoint ${(firstMs / 1000).toFixed(1)} s, ${(firstBytes / 2 ** 20).toFixed(1)} MiB`,
      },
      {
        name: `step checkpoint after a Write, narrowed to its file (${BIG_FILES.toLocaleString('en')} files)`,
        value: median(narrowedMs),
        unit: 'ms',
        baseline: { name: 'the same checkpoint of the whole workspace', value: median(oneMs) },
      },
      { name: 'checkpoint, 1,000 files changed', value: median(thousandMs), unit: 'ms', baseline: { name: 'lstat of every entry', value: median(statMs) } },
      {
        name: 'restore 1,000 files from a checkpoint',
        value: median(restoreMs),
        unit: 'ms',
        baseline: { name: 'writeFile of the same 1,000 files', value: median(writeMs) },
      },
      {
        name: 'storage added per checkpoint, 1 file changed',
        value: median(added),
        unit: 'bytes',
        baseline: { name: "that file's deflated size", value: deflated },
        note: `the file is ${changedFile.length} bytes; the workspace ${((BIG_FILES * 2_000) / 2 ** 20).toFixed(0)} MiB`,
      },
    ];
  } finally {
    for (const [p, bytes] of originals) await writeFile(join(root, p), bytes);
    await rm(home, { recursive: true, force: true });
  }
}

type Harness = Awaited<ReturnType<typeof createHarness>>;

/** A turn that runs one shell command that appends to a file, and answers. */
async function bashTurn(h: Harness, path: string, i: number, checkpoints: boolean): Promise<number> {
  h.server.enqueue(toolStep(callChunk('Bash', { command: `echo ${i} >> ${path}` })), textReply('Done.'));
  const t0 = performance.now();
  const turnId = await h.run(`append to ${path}`);
  if (checkpoints) {
    while (!h.sessionEvents('turn.changes').some((e) => (e as { turnId?: string }).turnId === turnId)) await new Promise((r) => setTimeout(r, 2));
  }
  return performance.now() - t0;
}

/** A turn that rewrites one file with Write and answers; done when its changed files are known (with checkpoints) or when it ends. */
async function writeTurn(h: Harness, path: string, content: string, checkpoints: boolean): Promise<number> {
  h.server.enqueue(toolStep(callChunk('Write', { path, content })), textReply('Done.'));
  const t0 = performance.now();
  const turnId = await h.run(`rewrite ${path}`);
  if (checkpoints) {
    while (!h.sessionEvents('turn.changes').some((e) => (e as { turnId?: string }).turnId === turnId)) await new Promise((r) => setTimeout(r, 2));
  }
  return performance.now() - t0;
}

async function turnFigures(): Promise<BenchResult[]> {
  const on = await createHarness({ capabilities: defaultCapabilities });
  const off = await createHarness();
  try {
    const paths = await fillWorkspace(on.workspace, TURN_FILES, 3_000, 11);
    await fillWorkspace(off.workspace, TURN_FILES, 3_000, 11);
    const next = random(5);
    const content = (i: number) => `${sourceText(next, 3_000)}// turn ${i}\n`;
    // Warm both (the store's first full capture happens here, once per workspace).
    await writeTurn(on, paths[0]!, content(0), true);
    await writeTurn(off, paths[0]!, content(0), false);
    const withMs: number[] = [];
    const withoutMs: number[] = [];
    const bashWithMs: number[] = [];
    const bashWithoutMs: number[] = [];
    for (let i = 1; i <= RUNS; i++) {
      withMs.push(await writeTurn(on, paths[i * 37]!, content(i), true));
      withoutMs.push(await writeTurn(off, paths[i * 37]!, content(i), false));
      bashWithMs.push(await bashTurn(on, paths[i * 41]!, i, true));
      bashWithoutMs.push(await bashTurn(off, paths[i * 41]!, i, false));
    }

    // Store growth over many turns, each rewriting one file.
    const storeOf = await CheckpointStore.open(on.home, on.workspace);
    const startBytes = await storeOf.sizeBytes();
    let deflated = 0;
    for (let i = 0; i < GROWTH_TURNS; i++) {
      const text = content(100 + i);
      deflated += deflateSync(Buffer.from(text)).length;
      await writeTurn(on, paths[(i * 211) % paths.length]!, text, true);
    }
    const grown = (await storeOf.sizeBytes()) - startBytes;
    const checkpointsTaken = (await storeOf.list(on.session.id)).length;
    return [
      {
        name: `agent turn (Write 1 file) with checkpoints, ${TURN_FILES.toLocaleString('en')} files`,
        value: median(withMs),
        unit: 'ms',
        baseline: { name: 'the same turn without checkpoints', value: median(withoutMs) },
        note: `+${(median(withMs) - median(withoutMs)).toFixed(0)} ms per turn (before; after the step, narrowed to the file; at the end)`,
      },
      {
        name: `agent turn (1 Bash command) with checkpoints, ${TURN_FILES.toLocaleString('en')} files`,
        value: median(bashWithMs),
        unit: 'ms',
        baseline: { name: 'the same turn without checkpoints', value: median(bashWithoutMs) },
        note: `+${(median(bashWithMs) - median(bashWithoutMs)).toFixed(0)} ms per turn (before; after the step; no end capture when nothing ran since)`,
      },
      {
        name: `store growth over ${GROWTH_TURNS} turns (1 file each)`,
        value: grown / 1024,
        unit: 'KiB',
        baseline: { name: 'the written contents, deflated', value: deflated / 1024 },
        note: `${checkpointsTaken} checkpoints in the session; workspace ${((TURN_FILES * 3_000) / 2 ** 20).toFixed(1)} MiB`,
      },
    ];
  } finally {
    await on.dispose();
    await off.dispose();
  }
}

export default async function checkpointsBench(): Promise<BenchResult[]> {
  return [...(await storeFigures()), ...(await turnFigures())];
}
