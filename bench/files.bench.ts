import { localEnvironment } from '../main/agent/infra/environment/local/local-environment';
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { open, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { FileTracker } from '../main/agent/capabilities/files/file-state';
import { ripgrepPath } from '../main/agent/infra/environment/local/ripgrep-binary';
import { tempDir } from '../test-support/harness';
import { type Tool, type ToolEnv, isExecution } from '../main/agent/contract/tool';
import { editTool } from '../main/agent/capabilities/files/tools/edit/edit';
import { globTool } from '../main/agent/capabilities/files/tools/glob/glob';
import { grepTool } from '../main/agent/capabilities/files/tools/grep/grep';
import { readTool } from '../main/agent/capabilities/files/tools/read/read';
import { generateRepo } from './generate-repo';
import type { BenchResult } from './types';
import { inputSchemaOf } from '#contract/tool-input';

const run = promisify(execFile);
/** Runs per side; this machine is shared, so medians are reported with the best-run ratio beside them. */
const RUNS = 9;

function envFor(workspace: string): ToolEnv {
  return {
    environment: localEnvironment(),
    workspace,
    home: workspace,
    sessionId: 'bench',
    sessionDir: workspace,
    capabilities: { imageInput: false },
    extraRoots: () => [],
  };
}

/** Resolve and execute one call, as the loop does (minus the model). */
async function callTool(tool: Tool, args: unknown, env: ToolEnv): Promise<string> {
  const execution = await tool.resolveExecution(inputSchemaOf(tool.input).parse(args), env);
  if (!isExecution(execution)) throw new Error(JSON.stringify(execution.output));
  const result = await execution.execute({ signal: new AbortController().signal, onUpdate: () => {}, callId: 'b', turnId: 'b', step: 1 });
  if (result.isError) throw new Error(JSON.stringify(result.output));
  return typeof result.output === 'string' ? result.output : '';
}

/** CPU time (ms) of this process's children that have ended (Linux: cutime + cstime); 0 elsewhere. */
function childrenCpuMs(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return 0;
  }
}

/** Wall time, and CPU time of this process plus the children that ended meanwhile (rg's, the reliable figure here). */
async function timed(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const children = childrenCpuMs();
  const own = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const wall = performance.now() - t0;
  const used = process.cpuUsage(own);
  return { wall, cpu: (used.user + used.system) / 1000 + childrenCpuMs() - children };
}

let lastBest = '';

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;

/**
 * Medians of each, measured alternately so both see the same cache and load; `lastBest` notes the best-run ratio
 * and the median CPU of each side (this process and its children).
 */
async function paired(tool: () => Promise<unknown>, baseline: () => Promise<unknown>): Promise<[number, number]> {
  await tool();
  await baseline();
  const a: { wall: number; cpu: number }[] = [];
  const b: { wall: number; cpu: number }[] = [];
  for (let i = 0; i < RUNS; i++) {
    a.push(await timed(tool));
    b.push(await timed(baseline));
  }
  const [bestA, bestB] = [Math.min(...a.map((x) => x.wall)), Math.min(...b.map((x) => x.wall))];
  const [cpuA, cpuB] = [median(a.map((x) => x.cpu)), median(b.map((x) => x.cpu))];
  lastBest = `best runs ${bestA.toFixed(0)} vs ${bestB.toFixed(0)} ms (${(bestA / bestB).toFixed(2)}×); CPU ${cpuA.toFixed(0)} vs ${cpuB.toFixed(0)} ms (${(cpuA / cpuB).toFixed(2)}×)`;
  return [median(a.map((x) => x.wall)), median(b.map((x) => x.wall))];
}

/** Raw rg, its output collected (stdin closed: with a pipe there, rg would search stdin instead of the tree). */
function rg(args: string[], cwd: string): Promise<{ stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(ripgrepPath(), args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', reject);
    child.on('close', () => resolve({ stdout: Buffer.concat(chunks).toString() }));
  });
}

async function searchBenches(): Promise<BenchResult[]> {
  const repo = await generateRepo();
  const env = envFor(repo.root);
  const grep = grepTool();
  const glob = globTool();
  const size = `${(repo.files / 1000).toFixed(0)}k files, ${(repo.bytes / 1e6).toFixed(0)} MB`;
  const results: BenchResult[] = [];

  const files = async (token: string, label: string) => {
    const [tool, raw] = await paired(
      () => callTool(grep, { pattern: token }, env),
      () => rg(['--hidden', '-l', token], repo.root),
    );
    const count = (await rg(['--hidden', '-l', token], repo.root)).stdout.split('\n').filter(Boolean).length;
    results.push({
      name: `Grep files_with_matches, ${label} (${size})`,
      value: tool,
      unit: 'ms',
      baseline: { name: `rg -l`, value: raw },
      note: `${count} matching files, sorted newest first; ${lastBest}`,
    });
  };
  await files(repo.rare, 'rare token');
  await files(repo.common, 'common token');

  const [content, rawContent] = await paired(
    () => callTool(grep, { pattern: repo.rare, output_mode: 'content' }, env),
    () => rg(['--hidden', '-n', repo.rare], repo.root),
  );
  results.push({ name: `Grep content, rare token (${size})`, value: content, unit: 'ms', baseline: { name: 'rg -n', value: rawContent }, note: lastBest });

  const [globOurs, globRaw] = await paired(
    () => callTool(glob, { pattern: '*.ts' }, env),
    () => rg(['--hidden', '--files', '--glob', '*.ts'], repo.root),
  );
  results.push({
    name: `Glob *.ts (${size})`,
    value: globOurs,
    unit: 'ms',
    baseline: { name: 'rg --files --glob', value: globRaw },
    note: `~${Math.round(repo.files / 6)} matches, newest 100 returned; ${lastBest}`,
  });
  return results;
}

async function readBenches(): Promise<BenchResult[]> {
  const dir = await tempDir('deft-bench-read-');
  const path = join(dir, 'huge.log');
  const SIZE = 2 * 1024 ** 3;
  const lines = (tag: string) => Array.from({ length: 2000 }, (_, i) => `${tag} ${i} ${'lorem ipsum dolor sit amet '.repeat(2)}`).join('\n') + '\n';
  await writeFile(path, lines('head'));
  await truncate(path, SIZE);
  const tailText = Buffer.from(`\n${lines('tail')}`);
  const handle = await open(path, 'r+');
  await handle.write(tailText, 0, tailText.length, SIZE - tailText.length);
  await handle.close();
  const env = envFor(dir);
  const read = readTool(new FileTracker());
  const gc = (globalThis as { gc?: () => void }).gc;
  const results: BenchResult[] = [];
  for (const [label, args, command] of [
    ['first', { path: 'huge.log' }, ['head', '-n', '1000', path]],
    ['last', { path: 'huge.log', line_offset: -1000 }, ['tail', '-n', '1000', path]],
  ] as const) {
    gc?.();
    const rssBefore = process.memoryUsage().rss;
    const [tool, raw] = await paired(
      () => callTool(read, args, env),
      () => run(command[0], command.slice(1)),
    );
    const grew = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
    results.push({
      name: `Read ${label} 1,000 lines of a 2 GiB file`,
      value: tool,
      unit: 'ms',
      baseline: { name: command[0], value: raw },
      note: `RSS change ${grew >= 0 ? '+' : ''}${grew.toFixed(1)} MiB`,
    });
  }
  await rm(dir, { recursive: true, force: true });
  return results;
}

async function editBench(): Promise<BenchResult[]> {
  const dir = await tempDir('deft-bench-edit-');
  const path = join(dir, 'big.ts');
  const content = Array.from({ length: 200_000 }, (_, i) => `export const value${i} = ${i}; // ${'x'.repeat(30)}`).join('\n') + '\n';
  const env = envFor(dir);
  const files = new FileTracker();
  const read = readTool(files);
  const edit = editTool(files);
  let n = 0;
  const [tool, raw] = await paired(
    async () => {
      await writeFile(path, content);
      await callTool(read, { path: 'big.ts', n_lines: 1 }, env);
      await callTool(edit, { path: 'big.ts', old_string: 'export const value100000 = 100000;', new_string: `export const value100000 = ${++n};` }, env);
    },
    async () => {
      await writeFile(path, content);
      const text = await readFile(path, 'utf8');
      await writeFile(path, text.replace('export const value100000 = 100000;', `export const value100000 = ${++n};`));
    },
  );
  await rm(dir, { recursive: true, force: true });
  return [
    {
      name: `Edit one line of a ${(content.length / 1024 / 1024).toFixed(0)} MiB file (with Read, atomic write, diff)`,
      value: tool,
      unit: 'ms',
      baseline: { name: 'readFile + replace + writeFile', value: raw },
    },
  ];
}

/** File tools against raw tools on the same data: ripgrep for Grep/Glob, head/tail for Read, plain fs for Edit. */
export default async function filesBench(): Promise<BenchResult[]> {
  return [...(await searchBenches()), ...(await readBenches()), ...(await editBench())];
}
