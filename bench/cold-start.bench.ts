import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MockModelServer } from '../test-support/mock-model-server';
import { tempDir } from '../test-support/harness';
import { ensureBuild, root } from '../scripts/ensure-build.mjs';
import { type ProcessCost, interleavedMedians, measureProcess, programsStarted } from './process-cost';
import { generateSkills } from './skills.bench';
import type { BenchResult } from './types';

// Cold start (issue 36): a one-shot text turn of the built CLI and `deft --help`, beside `node -e 0`, in CPU
// seconds (wall time on a shared machine is mostly other people's load), with peak RSS, the programs a
// text-only run starts and how often it asks the server for its model list.

// Runs of each, taken in turns with `node -e 0` (CPU time is counted in 10 ms steps: medians of several).
const RUNS = 9;

/** A small committed repository, as a text-only question is usually asked in one. */
async function smallRepo(): Promise<string> {
  const dir = await tempDir('deft-bench-cold-ws-');
  await mkdir(join(dir, 'src'), { recursive: true });
  for (let i = 0; i < 20; i++) await writeFile(join(dir, 'src', `f${i}.ts`), `export const value${i} = ${i};\n`);
  await writeFile(join(dir, 'README.md'), '# A small project\n');
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      stdio: 'ignore',
      env: { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' },
    });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'init');
  return dir;
}

export default async function coldStart(): Promise<BenchResult[]> {
  ensureBuild();
  const server = new MockModelServer();
  await server.start();
  try {
    const workspace = await smallRepo();
    const home = await tempDir('deft-bench-cold-home-');
    const env = { ...process.env, DEFT_HOME: home };
    const deft = join(root, 'bin/deft.mjs');
    const run = [process.execPath, deft, 'run', '--base-url', server.baseUrl, '--model', 'mock-model', 'What is this project?'];
    // One run first: the first ever run in a workspace creates its files under the home.
    await measureProcess(run, { cwd: workspace, env });
    // The same turn with 1,000 skills in the user's folder (Deft home's skills/): their catalog is read, not watched.
    // The first run writes the stored catalog (cache/skills-catalog.json) that the measured runs read; a file changed
    // in the last two seconds is not stored, so the measured runs start that long after the skills were written.
    const skilled = await tempDir('deft-bench-cold-skills-home-');
    await generateSkills(join(skilled, 'skills'));
    const skilledEnv = { ...process.env, DEFT_HOME: skilled };
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    await measureProcess(run, { cwd: workspace, env: skilledEnv });
    const listsBefore = server.modelListRequests;
    const [node, text, help, withSkills] = (await interleavedMedians(RUNS, [
      () => measureProcess([process.execPath, '-e', '0']),
      () => measureProcess(run, { cwd: workspace, env }),
      () => measureProcess([process.execPath, deft, '--help'], { cwd: workspace, env }),
      () => measureProcess(run, { cwd: workspace, env: skilledEnv }),
    ])) as [ProcessCost, ProcessCost, ProcessCost, ProcessCost];
    if (withSkills.code !== 0) throw new Error(`deft run with 1,000 skills exited with ${withSkills.code}`);
    if (text.code !== 0) throw new Error(`deft run exited with ${text.code}`);
    const lists = (server.modelListRequests - listsBefore) / (RUNS * 2);
    const started = await programsStarted(run, { cwd: workspace, env });
    const counts = started
      ? Object.entries(started.reduce<Record<string, number>>((acc, p) => ({ ...acc, [p]: (acc[p] ?? 0) + 1 }), {}))
          .map(([p, n]) => `${n} ${p}`)
          .join(', ')
      : 'strace not installed';
    const baseline = { name: 'node -e 0', value: node.cpuMs };
    return [
      {
        name: 'one-shot `deft run` text turn: CPU',
        value: text.cpuMs,
        unit: 'ms',
        baseline,
        note: `goal ≤ 4×; wall ${text.wallMs.toFixed(0)} ms (node ${node.wallMs.toFixed(0)} ms); ${lists} /models requests per run`,
      },
      {
        name: 'one-shot `deft run` text turn: peak RSS',
        value: text.rssMiB,
        unit: 'MiB',
        baseline: { name: 'node -e 0', value: node.rssMiB },
        note: 'goal ≤ 100 MiB',
      },
      {
        name: 'processes a text-only `deft run` starts',
        value: started?.length ?? 0,
        unit: 'processes',
        baseline: { name: 'goal', value: 0 },
        note: started ? counts || 'none' : 'strace not installed',
      },
      {
        name: 'one-shot `deft run` text turn with 1,000 skills: CPU',
        value: withSkills.cpuMs,
        unit: 'ms',
        baseline: { name: 'no skills', value: text.cpuMs },
        note: `goal ≤ +150 ms: +${(withSkills.cpuMs - text.cpuMs).toFixed(0)} ms; wall ${withSkills.wallMs.toFixed(0)} vs ${text.wallMs.toFixed(0)} ms; peak RSS ${withSkills.rssMiB.toFixed(0)} vs ${text.rssMiB.toFixed(0)} MiB`,
      },
      { name: '`deft --help`: CPU', value: help.cpuMs, unit: 'ms', baseline, note: `goal ≤ 2×; peak RSS ${help.rssMiB.toFixed(0)} MiB` },
    ];
  } finally {
    await server.close();
  }
}
