// Code intelligence: time from an Edit to its diagnostics on a 2,000-file TypeScript project (cold server and warm),
// the memory of an idle server before and after the idle shutdown, and that a text-only turn starts no server.
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { sessionCodeChecks } from '../main/agent/capabilities/lsp/code-checks';
import { sandboxedServerLauncher } from '../main/agent/capabilities/lsp/launch';
import { DEFAULT_LSP_SETTINGS } from '../main/agent/capabilities/lsp/settings';
import { readLocalSmallText } from '../main/agent/capabilities/lsp/where';
import { builtinServers } from '../main/agent/infra/lsp/server-specs';
import { LanguageServers } from '../main/agent/infra/lsp/servers';
import { Sandbox } from '../main/agent/infra/sandbox/sandbox';
import { TrustStore } from '../main/agent/infra/settings/trust';
import { createHarness, tempDir } from '../test-support/harness';
import { textReply } from '../test-support/mock-steps';
import type { BenchResult } from './types';
import { workspacePlace } from '#infra/environment/workspace-place';

const FILES = 2_000;

/** A project of FILES modules in 40 folders, each importing the one before it: what tsserver must load. */
async function generateProject(dir: string): Promise<void> {
  await writeFile(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', types: [] },
      include: ['src'],
    }),
  );
  for (let folder = 0; folder < 40; folder++) await mkdir(join(dir, 'src', `m${folder}`), { recursive: true });
  await Promise.all(
    Array.from({ length: FILES }, (_, i) => {
      const previous = i > 0 ? `import { value${i - 1}, type Shape${i - 1} } from '../m${(i - 1) % 40}/f${i - 1}';\n` : '';
      const body = [
        `export interface Shape${i} { id: number; name: string; next?: ${i > 0 ? `Shape${i - 1}` : 'null'} }`,
        `export const value${i}: number = ${i > 0 ? `value${i - 1} + 1` : '0'};`,
        `export function make${i}(name: string): Shape${i} { return { id: value${i}, name }; }`,
        ...Array.from({ length: 8 }, (_, k) => `export const item${i}_${k} = make${i}('n${k}').name.toUpperCase();`),
      ].join('\n');
      return writeFile(join(dir, 'src', `m${i % 40}`, `f${i}.ts`), `${previous}${body}\n`);
    }),
  );
}

/** Resident memory (MB) of a process and everything below it. */
function treeRssMb(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  let kb = 0;
  const visit = (p: number) => {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      kb += m ? Number(m[1]) : 0;
    } catch {
      // Gone meanwhile.
    }
    for (const c of children.get(p) ?? []) visit(c);
  };
  visit(pid);
  return kb / 1024;
}

async function editTimes(): Promise<BenchResult[]> {
  const workspace = await tempDir('deft-bench-lsp-');
  const home = await tempDir('deft-bench-lsp-home-');
  await generateProject(workspace);
  const target = join(workspace, 'src', 'm39', `f${FILES - 1}.ts`);
  const original = await readFile(target, 'utf8');
  const broken = original.replace(`export const value${FILES - 1}: number`, `export const value${FILES - 1}: string`);

  // Baseline: what the model would run otherwise — the compiler over the project.
  const tsc = join(process.cwd(), 'node_modules', 'typescript', 'bin', 'tsc');
  const t0 = performance.now();
  execFileSync(process.execPath, [tsc, '-p', workspace], { stdio: 'ignore' });
  const tscMs = performance.now() - t0;

  const idleMs = { value: 60 * 60_000 };
  const sandbox = new Sandbox({ workspace, home });
  const servers = new LanguageServers({
    workspace,
    launch: sandboxedServerLauncher(sandbox.forWorkspace()),
    specs: async () => builtinServers(workspace).filter((s) => s.id === 'typescript'),
    idleMs: () => idleMs.value,
  });
  const checks = sessionCodeChecks({
    workspace,
    servers,
    settings: async () => ({ ...DEFAULT_LSP_SETTINGS, diagnosticsWaitMs: 120_000 }),
    inject: () => {},
    readSmallText: readLocalSmallText,
    takeNotices: () => [],
  });
  const signal = new AbortController().signal;
  const edit = async (before: string, after: string, expect: number) => {
    await writeFile(target, after);
    const started = performance.now();
    const check = await checks.afterWrite(target, before, after, signal);
    const ms = performance.now() - started;
    const found = check?.diagnostics.problems.length ?? -1;
    if (expect === 0 ? found !== 0 : found < expect) throw new Error(`expected ${expect === 0 ? 'no' : 'some'} new problems, got ${found}`);
    return ms;
  };
  const coldMs = await edit(original, broken, 1);
  const warm: number[] = [];
  for (let i = 0; i < 3; i++) {
    warm.push(await edit(broken, original, 0));
    warm.push(await edit(original, broken, 1));
  }
  warm.sort((a, b) => a - b);
  const warmMs = warm[Math.floor(warm.length / 2)]!;

  const client = servers.running()[0]!;
  const pid = client.pid!;
  await new Promise((r) => setTimeout(r, 2_000));
  const idleRss = treeRssMb(pid);
  // Idle shutdown: the next use arms a short timer.
  idleMs.value = 500;
  await servers.clientFor(target);
  await client.exit;
  await new Promise((r) => setTimeout(r, 500));
  const afterRss = treeRssMb(pid);
  await servers.close();
  const load = loadavg()[0]!.toFixed(1);
  return [
    {
      name: `lsp: Edit → diagnostics, cold server (${FILES} files)`,
      value: coldMs,
      unit: 'ms',
      baseline: { name: 'tsc -p, whole project', value: tscMs },
      note: `load ${load}; includes server start and project load`,
    },
    {
      name: `lsp: Edit → diagnostics, warm server (${FILES} files)`,
      value: warmMs,
      unit: 'ms',
      baseline: { name: 'tsc -p, whole project', value: tscMs },
      note: `median of ${warm.length}`,
    },
    {
      name: 'lsp: idle server memory after idle shutdown',
      value: Math.max(afterRss, 0.01),
      unit: 'MB',
      baseline: { name: 'idle server before', value: idleRss },
      note: 'RSS of the server and its tsserver processes',
    },
  ];
}

async function textTurn(): Promise<BenchResult[]> {
  const h = await createHarness();
  try {
    await writeFile(join(h.workspace, 'tsconfig.json'), '{}');
    await writeFile(join(h.workspace, 'app.py'), 'x = 1\n');
    await new TrustStore(h.home, workspacePlace(h.workspace)).trust();
    h.server.enqueue(textReply('Hello.'));
    await h.run('Say hello');
    const status = await h.core.handlers.lspStatus({});
    const started = status.servers.filter((s) => s.state !== 'not-started').length;
    return [
      {
        name: 'lsp: servers started by a text-only turn',
        value: Math.max(started, 0.001),
        unit: 'servers',
        baseline: { name: 'servers available', value: status.servers.length },
        note: started ? 'FAIL: a text turn started a server' : '0 started',
      },
    ];
  } finally {
    await h.dispose();
  }
}

export default async function run(): Promise<BenchResult[]> {
  return [...(await textTurn()), ...(await editTimes())];
}
