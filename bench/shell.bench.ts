import { localEnvironment } from '../main/agent/infra/environment/local/local-environment';
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { resolveShell } from '../main/agent/capabilities/shell/shell';
import { ShellSession } from '../main/agent/capabilities/shell/shell-session';
import { ShellJob } from '../main/agent/capabilities/shell/shell-job';
import type { SessionHandle } from '../main/agent/contract/capability';
import { tempDir } from '../test-support/harness';
import { inertSessionHandle } from '../test-support/session-handle';
import { processesMatching, uniqueSleep } from '../test-support/processes';
import { bashTool } from '../main/agent/capabilities/shell/tools/bash/bash';
import { isExecution } from '../main/agent/contract/tool';
import type { TaskBoard } from '../main/agent/infra/tasks/task-board';
import { type BenchResult, median } from './types';

const MB = 1024 * 1024;

const handleFor = (dir: string): SessionHandle => inertSessionHandle('bench', dir);

function waitExit(command: string, args: string[], options: { stdout?: 'ignore' } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', options.stdout ?? 'ignore', 'ignore'] });
    child.once('error', reject);
    child.once('exit', () => resolve());
  });
}

/** The least a tool that captures output must do: its own process group, stdout and stderr read to the end. */
function waitPiped(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child.once('error', reject);
    child.stdout.resume();
    child.stderr.resume();
    child.once('close', () => resolve());
  });
}

/** One Bash tool call running `true` (path guard, log file, process group, result) against spawning the shell. */
async function callOverhead(workspace: string, tasks: ShellSession): Promise<BenchResult[]> {
  const tool = bashTool(tasks);
  const env = {
    environment: localEnvironment(),
    workspace,
    home: workspace,
    sessionId: 'bench',
    sessionDir: tasks.handle.dir,
    capabilities: { imageInput: false },
    extraRoots: () => [],
  };
  const ctx = { signal: new AbortController().signal, onUpdate: () => {}, callId: 'c', turnId: 't', step: 1 };
  const call = async () => {
    const resolved = await tool.resolveExecution({ command: 'true', run_in_background: false, disable_timeout: false }, env);
    if (!isExecution(resolved)) throw new Error('Bash did not resolve');
    const result = await resolved.execute(ctx);
    if (result.isError) throw new Error(JSON.stringify(result.output));
  };
  const shell = resolveShell();
  for (let i = 0; i < 5; i++) {
    await call();
    await waitExit(shell, ['-c', 'true']);
  }
  const tool_ = await median(41, async () => {
    const t0 = performance.now();
    await call();
    return performance.now() - t0;
  });
  const raw = await median(41, async () => {
    const t0 = performance.now();
    await waitExit(shell, ['-c', 'true']);
    return performance.now() - t0;
  });
  // CPU of this process (Deft's side: guard, plan, spawn, log, result), which load does not inflate as it does wall time.
  const cpuPerCall = async (run: () => Promise<void>) => {
    const start = process.cpuUsage();
    for (let i = 0; i < 41; i++) await run();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000 / 41;
  };
  const toolCpu = await cpuPerCall(call);
  const rawCpu = await cpuPerCall(() => waitExit(shell, ['-c', 'true']));
  const pipedCpu = await cpuPerCall(() => waitPiped(shell, ['-c', 'true']));
  return [
    { name: 'Bash call running `true` (median of 41)', value: tool_, unit: 'ms', baseline: { name: `spawn ${shell} -c true directly`, value: raw } },
    {
      name: "Bash call running `true`: CPU in Deft's process",
      value: toolCpu,
      unit: 'ms',
      baseline: { name: 'the same for a direct spawn', value: rawCpu },
      note: `+${(toolCpu - rawCpu).toFixed(2)} ms per call; a spawn with its own group and piped output costs ${pipedCpu.toFixed(2)} ms; means of 41`,
    },
  ];
}

/** 100 MB streamed through a job (log file, head/tail, a live listener) against the shell writing it to a file itself. */
async function streaming(dir: string): Promise<BenchResult> {
  const bytes = 100 * MB;
  const job = await ShellJob.start({
    environment: localEnvironment(),
    id: 'bash-benchlog',
    command: `head -c ${bytes} /dev/zero`,
    cwd: dir,
    logPath: join(dir, 'stream', 'output.log'),
    maxOutputBytes: 2 * bytes,
  });
  let seen = 0;
  job.onOutput((chunk) => (seen += chunk.length));
  const t0 = performance.now();
  const outcome = await job.done;
  const jobMs = performance.now() - t0;
  if (outcome.outputBytes !== bytes || seen !== bytes) throw new Error(`streamed ${outcome.outputBytes} bytes, listener saw ${seen}`);
  // Baseline: the least Node can do (spawn, pipe stdout into a file stream); the shell writing the file itself, for scale.
  const t1 = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn('head', ['-c', String(bytes), '/dev/zero'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const out = createWriteStream(join(dir, 'piped.log'));
    child.once('error', reject);
    child.stdout.pipe(out);
    out.once('close', () => resolve());
  });
  const pipedMs = performance.now() - t1;
  const t2 = performance.now();
  await waitExit(resolveShell(), ['-c', `head -c ${bytes} /dev/zero > ${join(dir, 'direct.log')}`]);
  const directMs = performance.now() - t2;
  const rate = (ms: number) => bytes / MB / (ms / 1000);
  return {
    name: 'stream 100 MB of output to a task log',
    value: rate(jobMs),
    unit: 'MB/s',
    baseline: { name: 'plain Node spawn piping stdout to a file', value: rate(pipedMs) },
    note: `${jobMs.toFixed(0)} ms vs ${pipedMs.toFixed(0)} ms; shell redirect straight to a file: ${rate(directMs).toFixed(0)} MB/s`,
  };
}

/** 100 background tasks started, then all stopped at once (process-tree kill), checked against the process table. */
async function hundredTasks(workspace: string, tasks: ShellSession): Promise<BenchResult> {
  const nap = uniqueSleep();
  const t0 = performance.now();
  const jobs = await Promise.all(Array.from({ length: 100 }, () => tasks.processes.spawn(`sleep ${nap}`, workspace)));
  for (const job of jobs) tasks.processes.adopt(job, 'bench sleeper', 600);
  await Promise.all(jobs.map((job) => tasks.tasks.stop(job.id, 'user')));
  const ours = performance.now() - t0;
  const leftover = processesMatching(`sleep ${nap}`).length;
  if (leftover) throw new Error(`${leftover} processes left behind`);

  const t1 = performance.now();
  const children = Array.from({ length: 100 }, () => spawn('sleep', [nap], { stdio: 'ignore' }));
  await Promise.all(children.map((c) => new Promise((resolve) => (c.pid ? resolve(c.pid) : c.once('spawn', () => resolve(c.pid))))));
  await Promise.all(children.map((c) => new Promise((resolve) => (c.once('exit', resolve), c.kill('SIGTERM')))));
  const raw = performance.now() - t1;
  return {
    name: '100 background tasks started and stopped',
    value: ours,
    unit: 'ms',
    baseline: { name: 'spawn + kill 100 sleeps directly', value: raw },
    note: `leftover processes: ${leftover}`,
  };
}

export default async function shellBench(): Promise<BenchResult[]> {
  const dir = await tempDir('deft-bench-shell-');
  const tasks = new ShellSession(handleFor(dir), { environment: localEnvironment(), emitApp: () => {} });
  try {
    return [...(await callOverhead(dir, tasks)), await streaming(dir), await hundredTasks(dir, tasks)];
  } finally {
    await (tasks.tasks as TaskBoard).close();
    await tasks.close();
    await rm(dir, { recursive: true, force: true });
  }
}
