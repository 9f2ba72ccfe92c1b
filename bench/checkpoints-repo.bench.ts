import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, readdir, lstat, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { MockModelServer } from '../test-support/mock-model-server';
import { tempDir } from '../test-support/harness';
import { callChunk, textReply, toolStep } from '../test-support/mock-steps';
import { ensureBuild, root } from '../scripts/ensure-build.mjs';
import { random, sourceText } from './generate-repo';
import { type ProcessCost, measureProcess } from './process-cost';
import type { BenchResult } from './types';

// Checkpoints on a committed 20,000-file repository (issue 36), through the built CLI as a user runs it: each
// turn is one `deft run` with checkpoints on, beside the same turn with checkpoints off, in CPU (the process
// and every git it waited for) and wall. The first turn (the store's baseline), later turns changing one
// file by Write, one by a shell command, 500 by a shell command and six commands changing one file each, and the store's size beside the
// repository's own packed objects. Then the same later turns in a window's long-running core (the file watcher live
// before the turn: checkpoints-window-host.ts), checkpoints on beside off.

const FILES = 20_000;
const FILE_BYTES = 4_200;
const RUNS = 3;
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
};

const pathOf = (i: number) => `src/m${Math.floor(i / 1000)}/d${Math.floor(i / 50) % 20}/f${i}.ts`;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'gc.auto=0', ...args], { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
}

/**
 * The repository, generated once per machine (committed and packed: a template no run changes, made in a folder of
 * its own and renamed into place, so two runs never build it at once), then cloned into a folder of this run's own —
 * another process running this bench at the same time never touches the files this run changes. The clone's index is
 * rewritten a second later by a mixed reset, as a user's after a commit: its stat data not racy (git would hash such
 * files again) and its cache-tree complete.
 */
async function repository(): Promise<string> {
  const template = join(tmpdir(), 'deft-bench-committed-20k-v2');
  const exists = (path: string) =>
    stat(path).then(
      () => true,
      () => false,
    );
  if (!(await exists(join(template, '.git', 'HEAD')))) {
    const dir = await tempDir('deft-bench-committed-20k-build-');
    const next = random(36);
    for (let i = 0; i < FILES; i += 500) {
      const batch = Array.from({ length: Math.min(500, FILES - i) }, (_, k) => pathOf(i + k));
      await Promise.all([...new Set(batch.map((p) => join(dir, p.slice(0, p.lastIndexOf('/')))))].map((d) => mkdir(d, { recursive: true })));
      await Promise.all(batch.map((p) => writeFile(join(dir, p), sourceText(next, FILE_BYTES))));
    }
    await writeFile(join(dir, '.gitignore'), 'build/\n');
    git(dir, 'init', '-q');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'the repository');
    git(dir, 'gc', '-q');
    await rename(dir, template).catch(async () => {
      // Another run made it first.
      await rm(dir, { recursive: true, force: true });
    });
  }
  const dir = join(await tempDir('deft-bench-cprepo-ws-'), 'repo');
  git(tmpdir(), 'clone', '-q', template, dir);
  await new Promise((resolve) => setTimeout(resolve, 1_100));
  git(dir, 'reset', '-q');
  return dir;
}

async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? await folderBytes(path) : ((await lstat(path).catch(() => null))?.size ?? 0);
  }
  return total;
}

/** A window's turns (checkpoints-window-host.ts), each kind's CPU per turn, ms. */
async function windowTurns(home: string, workspace: string): Promise<Record<string, number[]>> {
  // The child registers the raw-import hooks itself (the variable would tell it they already are).
  const { __DEFT_RAW_HOOKS: _registered, ...env } = process.env;
  const args = [
    '--import',
    'tsx',
    '--import',
    './scripts/raw-loader.mjs',
    join(import.meta.dirname, 'checkpoints-window-host.ts'),
    home,
    workspace,
    String(RUNS),
  ];
  const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: root, env, maxBuffer: 16 * 2 ** 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, number[]>;
}

interface Mode {
  home: string;
  costs: Record<string, ProcessCost[]>;
}

export default async function checkpointsRepo(): Promise<BenchResult[]> {
  ensureBuild();
  const workspace = await repository();
  const server = new MockModelServer();
  await server.start();
  const modes: Record<'on' | 'off', Mode> = {
    on: { home: await tempDir('deft-bench-cprepo-on-'), costs: {} },
    off: { home: await tempDir('deft-bench-cprepo-off-'), costs: {} },
  };
  await writeFile(join(modes.off.home, 'settings.json'), JSON.stringify({ checkpoints: { enabled: false } }));
  const turn = async (mode: Mode, label: string, ...steps: ReturnType<typeof toolStep>[]) => {
    server.enqueue(...steps, textReply('Done.'));
    const argv = [
      process.execPath,
      join(root, 'bin/deft.mjs'),
      'run',
      '--base-url',
      server.baseUrl,
      '--model',
      'mock-model',
      '--permission-mode',
      'yolo',
      '--sandbox',
      'off',
      `turn ${label}`,
    ];
    const cost = await measureProcess(argv, { cwd: workspace, env: { ...process.env, DEFT_HOME: mode.home } });
    if (cost.code !== 0) throw new Error(`deft run (${label}) exited with ${cost.code}`);
    (mode.costs[label] ??= []).push(cost);
  };
  let storeBytes = 0;
  try {
    const next = random(7);
    // A file is read before it is written (Write refuses a file the session has not read): a step that reads, then one that writes.
    const write = (path: string) => [
      toolStep(callChunk('Read', { path: join(workspace, path) })),
      toolStep(callChunk('Write', { path: join(workspace, path), content: sourceText(next, FILE_BYTES) })),
    ];
    for (const name of ['on', 'off'] as const) {
      await turn(modes[name], 'first', ...write(pathOf(5)));
      if (name === 'on') storeBytes = await folderBytes(join(modes.on.home, 'checkpoints'));
    }
    const many = Array.from({ length: 500 }, (_, i) => pathOf(i * 40 + 3)).join(' ');
    for (let i = 1; i <= RUNS; i++) {
      for (const name of ['on', 'off'] as const) {
        await turn(modes[name], 'write', ...write(pathOf(100 + i)));
        await turn(modes[name], 'shell', toolStep(callChunk('Bash', { command: `echo ${i} >> ${pathOf(200 + i)}` })));
        await turn(modes[name], 'shell500', toolStep(callChunk('Bash', { command: `for f in ${many}; do echo ${i} >> $f; done` })));
        // Six commands in one turn, each changing one file: from the second on, the file watcher says what changed.
        const commands = Array.from({ length: 6 }, (_, k) => toolStep(callChunk('Bash', { command: `echo ${i} >> ${pathOf(300 + k)}` })));
        await turn(modes[name], 'shell6', ...commands);
      }
    }
    const packed = await folderBytes(join(workspace, '.git', 'objects'));
    // A window: the same later turns in one long-running core per mode, twice each, interleaved.
    const window: Record<'on' | 'off', Record<string, number[]>> = { on: {}, off: {} };
    for (let round = 0; round < 2; round++)
      for (const name of ['on', 'off'] as const) {
        const home = await tempDir(`deft-bench-cpwin-${name}-`);
        if (name === 'off') await writeFile(join(home, 'settings.json'), JSON.stringify({ checkpoints: { enabled: false } }));
        try {
          for (const [label, costs] of Object.entries(await windowTurns(home, workspace))) (window[name][label] ??= []).push(...costs);
        } finally {
          await rm(home, { recursive: true, force: true });
        }
      }
    const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const windowRow = (label: string, title: string, goal: string): BenchResult => ({
      name: `window (watch live), ${title} with checkpoints, ${FILES.toLocaleString('en')}-file repository: CPU`,
      value: middle(window.on[label]!),
      unit: 'ms',
      baseline: { name: 'checkpoints off', value: middle(window.off[label]!) },
      note: `${goal}${goal ? '; ' : ''}CPU of the window's process and its children during the turn, median of ${window.on[label]!.length}`,
    });
    const median = (costs: ProcessCost[], key: 'cpuMs' | 'wallMs') => [...costs.map((c) => c[key])].sort((a, b) => a - b)[Math.floor(costs.length / 2)]!;
    const row = (label: string, title: string, goal: string): BenchResult => {
      const [on, off] = [modes.on.costs[label]!, modes.off.costs[label]!];
      return {
        name: `${title} with checkpoints, ${FILES.toLocaleString('en')}-file repository: CPU`,
        value: median(on, 'cpuMs'),
        unit: 'ms',
        baseline: { name: 'checkpoints off', value: median(off, 'cpuMs') },
        note: `${goal}; wall ${median(on, 'wallMs').toFixed(0)} vs ${median(off, 'wallMs').toFixed(0)} ms`,
      };
    };
    return [
      row('first', 'first turn (Write 1 file; the store is new)', 'goal ≤ 1.2×'),
      row('write', 'later turn, Write 1 file,', 'goal ≤ 1.1×'),
      row('shell', 'later turn, 1 file changed by a command,', 'goal ≤ 1.1×'),
      row('shell500', 'later turn, 500 files changed by a command,', ''),
      row('shell6', 'later turn, 6 commands each changing 1 file,', 'goal ≤ 1.1×'),
      windowRow('write', 'Write 1 file,', 'goal ≤ 1.1×'),
      windowRow('shell', '1 file changed by a command,', 'goal ≤ 1.1×'),
      windowRow('shell500', '500 files changed by a command,', ''),
      {
        name: 'checkpoint store after the first turn',
        value: storeBytes / 2 ** 20,
        unit: 'MiB',
        baseline: { name: "the repository's packed objects", value: packed / 2 ** 20 },
        note: `workspace ${((FILES * FILE_BYTES) / 1e6).toFixed(0)} MB`,
      },
    ];
  } finally {
    await server.close();
    await rm(modes.on.home, { recursive: true, force: true });
    await rm(modes.off.home, { recursive: true, force: true });
    await rm(dirname(workspace), { recursive: true, force: true });
  }
}
