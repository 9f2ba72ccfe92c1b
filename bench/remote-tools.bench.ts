import { copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type CliIo, runCli } from '../main/host/cli/cli';
import type { Environment } from '../main/agent/contract/environment';
import { type Tool, type ToolEnv, isExecution } from '../main/agent/contract/tool';
import { FileTracker } from '../main/agent/capabilities/files/file-state';
import { editTool } from '../main/agent/capabilities/files/tools/edit/edit';
import { globTool } from '../main/agent/capabilities/files/tools/glob/glob';
import { grepTool } from '../main/agent/capabilities/files/tools/grep/grep';
import { readTool } from '../main/agent/capabilities/files/tools/read/read';
import { writeTool } from '../main/agent/capabilities/files/tools/write/write';
import { ShellSession } from '../main/agent/capabilities/shell/shell-session';
import { bashTool } from '../main/agent/capabilities/shell/tools/bash/bash';
import { LocalEnvironment } from '../main/agent/infra/environment/local/local-environment';
import { SshEnvironment } from '../main/agent/infra/environment/ssh/ssh-environment';
import { fastRetry, tempDir } from '../test-support/harness';
import { MockModelServer } from '../test-support/mock-model-server';
import { callChunk, textReply, toolStep } from '../test-support/mock-steps';
import { inertSessionHandle } from '../test-support/session-handle';
import { type TestSshd, startSshd } from '../test-support/sshd';
import { generateRepo } from './generate-repo';
import type { BenchResult } from './types';
import { inputSchemaOf } from '#contract/tool-input';

// Issue 29's tool-level figures: Read (1,000 lines), Edit, Grep and Glob over the 20,000-file repository, Bash `true`
// and a 20-step `deft run` turn, each over loopback SSH (a real sshd; the same folders seen through it) beside local,
// in the same run, with the round trips each costs over SSH (SFTP calls, exec channels, helper scripts). The remote
// user's shell start-up files are this machine's (as in remote-turns.bench.ts), since every remote process pays them.
// REMOTE_RUNS sets the runs per side (default 5; the 20-step turn runs half as many, at least 2).

const RUNS = Number(process.env.REMOTE_RUNS ?? 5);
const TICK_MS = 10;

interface Sample {
  wallMs: number;
  cpuMs: number;
}

const mid = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function sample(fn: () => Promise<unknown>): Promise<Sample> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const wallMs = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

/** CPU of the sshd's finished connections (their processes and every child they waited for), ms. */
async function remoteCpuMs(pidFile: string): Promise<number> {
  const pid = (await readFile(pidFile, 'utf8')).trim();
  const text = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * TICK_MS;
}

/** An sshd whose user's home is a temp folder holding this user's `.bashrc`/`.profile` (and `~/.pyenv` in place). */
async function startRig(): Promise<{ sshd: TestSshd; remoteHome: string } | null> {
  const remoteHome = await tempDir('deft-bench-rtools-rhome-');
  const userHome = homedir();
  for (const name of ['.bashrc', '.profile']) await copyFile(join(userHome, name), join(remoteHome, name)).catch(() => {});
  const binds = [{ from: remoteHome, to: userInfo().homedir }];
  if (await stat(join(userHome, '.pyenv')).catch(() => null)) {
    const aside = await tempDir('deft-bench-rtools-pyenv-');
    await mkdir(join(remoteHome, '.pyenv'));
    binds.unshift({ from: join(userHome, '.pyenv'), to: aside });
    binds.push({ from: aside, to: join(userInfo().homedir, '.pyenv') });
  }
  const sshd = await startSshd({ binds });
  return sshd ? { sshd, remoteHome } : null;
}

function toolEnv(environment: Environment, workspace: string, home: string, sessionDir: string): ToolEnv {
  return { environment, workspace, home, sessionId: 'bench', sessionDir, capabilities: { imageInput: false }, extraRoots: () => [] };
}

async function callTool(tool: Tool, args: unknown, env: ToolEnv): Promise<void> {
  const execution = await tool.resolveExecution(inputSchemaOf(tool.input).parse(args), env);
  if (!isExecution(execution)) throw new Error(JSON.stringify(execution.output));
  const result = await execution.execute({ signal: new AbortController().signal, onUpdate: () => {}, callId: 'b', turnId: 'b', step: 1 });
  if (result.isError) throw new Error(`${tool.name}: ${JSON.stringify(result.output)}`);
}

const roundTrips = (ssh: SshEnvironment, before: SshEnvironment['usage']) => {
  const d = (key: keyof SshEnvironment['usage']) => ssh.usage[key] - before[key];
  // Each helper script is one round trip (its request, then its answer); an exec is at least one more.
  return `${d('sftpRoundTrips') + d('helperScripts')} round trips (SFTP and helper scripts); SFTP ${d('sftpCalls')} (${d('sftpRoundTrips')} round trips), exec ${d('execChannels')} (${d('warmShells')} on a shell started ahead), helper ${d('helperScripts')} (${d('resolvedReads')} one-trip reads, ${d('scriptedReplaces')} one-trip replaces)`;
};

interface Op {
  name: string;
  /** One call on this side (the environment's own tools and workspace). */
  call: (side: 'local' | 'ssh') => Promise<void>;
  /** A wait before each measured call, not counted (a model's step between two commands). */
  pauseMs?: number;
}

async function toolRows(sshd: TestSshd, sessionDir: string): Promise<BenchResult[]> {
  const workspace = await tempDir('deft-bench-rtools-ws-');
  await writeFile(
    join(workspace, 'thousand.ts'),
    Array.from({ length: 1000 }, (_, i) => `export const line${i} = ${i}; // ${'x'.repeat(30)}`).join('\n') + '\n',
  );
  // One file per side: both see the same folder.
  for (const side of ['local', 'ssh']) {
    await writeFile(join(workspace, `edit-${side}.ts`), 'export const value = 0;\n');
    await writeFile(join(workspace, `write-${side}.ts`), 'export const written = 0;\n');
  }
  const repo = await generateRepo();
  const local = new LocalEnvironment();
  const ssh = await SshEnvironment.connect(
    { host: '127.0.0.1', port: sshd.port, username: sshd.username, privateKey: sshd.privateKey, knownHostsFiles: [sshd.knownHosts] },
    workspace,
  );
  // The probe for one-round-trip reads and replaces runs in the background at a connection's first Read: done here,
  // so the counted calls are of a connection in use.
  // Wherever the machine can: `auto` (what `deft run` does) chooses by the link, and on loopback chooses SFTP.
  ssh.oneTripScripts = 'always';
  await ssh.prepareResolvedReads();
  console.log(
    `probe: a script on the helper shell ${ssh.probeFigures?.scriptMs.toFixed(2)} ms, an SFTP round trip ${ssh.probeFigures?.roundTripMs.toFixed(2)} ms`,
  );
  const envs = { local, ssh };
  const shells = {
    local: new ShellSession(inertSessionHandle('bench-l', sessionDir), { environment: local, emitApp: () => {} }),
    ssh: new ShellSession(inertSessionHandle('bench-s', sessionDir), { environment: ssh, emitApp: () => {} }),
  };
  const home = { local: homedir(), ssh: ssh.home };
  const at = (side: 'local' | 'ssh', root: string) => toolEnv(envs[side], root, home[side], sessionDir);
  const trackers = { local: new FileTracker(), ssh: new FileTracker() };
  const read = { local: readTool(trackers.local), ssh: readTool(trackers.ssh) };
  const edit = { local: editTool(trackers.local), ssh: editTool(trackers.ssh) };
  const write = { local: writeTool(trackers.local), ssh: writeTool(trackers.ssh) };
  const grep = grepTool();
  const glob = globTool();
  const bash = { local: bashTool(shells.local), ssh: bashTool(shells.ssh) };
  const value = { local: 0, ssh: 0 };
  const written = { local: 0, ssh: 0 };
  const size = `${(repo.files / 1000).toFixed(0)}k files`;
  const ops: Op[] = [
    { name: 'Read of a 1,000-line file', call: (side) => callTool(read[side], { path: 'thousand.ts' }, at(side, workspace)) },
    {
      name: 'Edit (one replacement, after a Read)',
      call: async (side) => {
        const path = `edit-${side}.ts`;
        if (!value[side]) await callTool(read[side], { path }, at(side, workspace));
        const old = `value = ${value[side]};`;
        await callTool(edit[side], { path, old_string: old, new_string: `value = ${++value[side]};` }, at(side, workspace));
      },
    },
    {
      name: 'Write over an existing file (after a Read)',
      call: async (side) => {
        const path = `write-${side}.ts`;
        if (!written[side]) await callTool(read[side], { path }, at(side, workspace));
        await callTool(write[side], { path, content: `export const written = ${++written[side]};\n` }, at(side, workspace));
      },
    },
    { name: `Grep files_with_matches, rare token (${size})`, call: (side) => callTool(grep, { pattern: repo.rare }, at(side, repo.root)) },
    { name: `Glob *.ts (${size})`, call: (side) => callTool(glob, { pattern: '*.ts' }, at(side, repo.root)) },
    {
      name: 'Bash `true`, back to back',
      call: (side) => callTool(bash[side], { command: 'true', run_in_background: false, disable_timeout: false }, at(side, workspace)),
    },
    {
      // As in a turn, where the model's step comes between two commands: the connection's next shell has started.
      name: 'Bash `true`, 3 s after the previous call',
      call: (side) => callTool(bash[side], { command: 'true', run_in_background: false, disable_timeout: false }, at(side, workspace)),
      pauseMs: 3_000,
    },
  ];
  const rows: BenchResult[] = [];
  try {
    for (const op of ops) {
      // A first call each (ripgrep uploaded, the helper shell started, caches warm) is not counted; the counts are of
      // the next call over SSH, each kind on its own (the Edit's first Read was in the warm-up).
      await op.call('local');
      await op.call('ssh');
      const pause = () => new Promise((resolve) => setTimeout(resolve, op.pauseMs ?? 0));
      await pause();
      const before = { ...ssh.usage };
      const firstSsh = await sample(() => op.call('ssh'));
      const trips = roundTrips(ssh, before);
      const samples: Record<'local' | 'ssh', Sample[]> = { local: [], ssh: [firstSsh] };
      for (let i = 0; i < RUNS; i++) {
        await pause();
        samples.local.push(await sample(() => op.call('local')));
        if (i === RUNS - 1) continue;
        await pause();
        samples.ssh.push(await sample(() => op.call('ssh')));
      }
      const wall = { local: mid(samples.local.map((s) => s.wallMs)), ssh: mid(samples.ssh.map((s) => s.wallMs)) };
      const cpu = { local: mid(samples.local.map((s) => s.cpuMs)), ssh: mid(samples.ssh.map((s) => s.cpuMs)) };
      rows.push({
        name: `remote tool: ${op.name}, SSH (loopback) wall`,
        value: wall.ssh,
        unit: 'ms',
        baseline: { name: 'local', value: wall.local },
        note: `per call over SSH: ${trips}; CPU here ${cpu.ssh.toFixed(1)} vs ${cpu.local.toFixed(1)} ms`,
      });
    }
  } finally {
    await Promise.all([shells.local.close(), shells.ssh.close()]).catch(() => {});
    await ssh.close();
    await rm(workspace, { recursive: true, force: true });
  }
  return rows;
}

const STEPS = 20;

/** 20 tool steps on small files: Read, Edit (of the file just read), Grep and Bash `true`, five times over. */
function twentySteps(workspace: string, turn: number): Parameters<MockModelServer['enqueue']> {
  const steps = [];
  for (let g = 0; g < STEPS / 4; g++) {
    const path = join(workspace, `f${g}.txt`);
    steps.push(toolStep(callChunk('Read', { path })));
    steps.push(toolStep(callChunk('Edit', { path, old_string: `marker ${g} v${turn}`, new_string: `marker ${g} v${turn + 1}` })));
    steps.push(toolStep(callChunk('Grep', { pattern: `marker ${g} v` })));
    steps.push(toolStep(callChunk('Bash', { command: 'true' })));
  }
  return [...steps, textReply('Done.')];
}

async function turnRows(sshd: TestSshd): Promise<BenchResult[]> {
  const server = new MockModelServer();
  await server.start();
  const workspaces = { local: await tempDir('deft-bench-rtools-tl-'), ssh: await tempDir('deft-bench-rtools-ts-') };
  for (const ws of Object.values(workspaces))
    for (let g = 0; g < STEPS / 4; g++) await writeFile(join(ws, `f${g}.txt`), `marker ${g} v0\n${'filler line\n'.repeat(40)}`);
  // Checkpoints off on both sides: this measures the tools' round trips (remote-turns.bench.ts measures checkpoints).
  const deftHome = await tempDir('deft-bench-rtools-home-');
  await writeFile(join(deftHome, 'settings.json'), JSON.stringify({ checkpoints: { enabled: false } }));
  const user = await tempDir('deft-bench-rtools-user-');
  await mkdir(join(user, '.ssh'), { mode: 0o700 });
  await writeFile(join(user, '.ssh', 'id_ed25519'), sshd.privateKey, { mode: 0o600 });
  await writeFile(join(user, '.ssh', 'known_hosts'), await readFile(sshd.knownHosts));
  const pidFile = join(sshd.dir, 'sshd.pid');
  const turns = { local: 0, ssh: 0 };
  type TurnCost = Sample & { remoteCpuMs: number; trips: string };
  const run = async (side: 'local' | 'ssh'): Promise<TurnCost> => {
    const ws = workspaces[side];
    server.enqueue(...twentySteps(ws, turns[side]++));
    const io: CliIo = {
      stdout: () => {},
      stderr: () => {},
      env: { DEFT_HOME: deftHome, HOME: user, USER: sshd.username },
      cwd: side === 'local' ? ws : user,
      coreOptions: { retry: fastRetry },
    };
    const remote = side === 'ssh' ? ['--remote', `${sshd.username}@127.0.0.1:${sshd.port}:${ws}`] : [];
    const args = ['run', '--base-url', server.baseUrl, '--model', 'm', '--permission-mode', 'yolo', ...remote, 'do the twenty steps'];
    const remoteBefore = await remoteCpuMs(pidFile);
    const usage = { ...SshEnvironment.processUsage };
    let code = 0;
    const cost = await sample(async () => (code = await runCli(args, io)));
    if (code !== 0) throw new Error(`deft run (${side}) exited with ${code}`);
    for (let i = 0; i < 100 && (await sshd.connectionCount()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    const now = SshEnvironment.processUsage;
    const trips = `SFTP ${now.sftpCalls - usage.sftpCalls} (${now.sftpRoundTrips - usage.sftpRoundTrips} round trips), exec ${now.execChannels - usage.execChannels} (${now.warmShells - usage.warmShells} commands on a shell started ahead), helper ${now.helperScripts - usage.helperScripts} (${now.resolvedReads - usage.resolvedReads} one-trip reads, ${now.scriptedReplaces - usage.scriptedReplaces} one-trip replaces)`;
    return { ...cost, remoteCpuMs: (await remoteCpuMs(pidFile)) - remoteBefore, trips };
  };
  const runs = Math.max(2, Math.ceil(RUNS / 2));
  const costs: Record<'local' | 'ssh', TurnCost[]> = { local: [], ssh: [] };
  try {
    await run('local');
    await run('ssh');
    for (let i = 0; i < runs; i++) for (const side of ['local', 'ssh'] as const) costs[side].push(await run(side));
    // Every Edit landed (a failed step would still end the turn, and make it look cheap).
    for (const side of ['local', 'ssh'] as const) {
      const text = await readFile(join(workspaces[side], 'f4.txt'), 'utf8');
      if (!text.startsWith(`marker 4 v${turns[side]}\n`)) throw new Error(`The ${side} turns' Edits did not all land: ${text.split('\n')[0]}`);
    }
  } finally {
    await server.close();
    for (const dir of [...Object.values(workspaces), deftHome, user]) await rm(dir, { recursive: true, force: true });
  }
  const m = (side: 'local' | 'ssh', key: 'wallMs' | 'cpuMs' | 'remoteCpuMs') => mid(costs[side].map((c) => c[key]));
  return [
    {
      name: `remote ${STEPS}-step \`deft run\` turn (Read/Edit/Grep/Bash), SSH (loopback) wall`,
      value: m('ssh', 'wallMs'),
      unit: 'ms',
      baseline: { name: 'local', value: m('local', 'wallMs') },
      note: `median of ${runs}; per turn over SSH (each run): ${costs.ssh.map((c) => c.trips).join(' / ')}; CPU here ${m('ssh', 'cpuMs').toFixed(0)} vs ${m('local', 'cpuMs').toFixed(0)} ms; CPU there (sshd, shells, rg) ${m('ssh', 'remoteCpuMs').toFixed(0)} ms`,
    },
  ];
}

export default async function remoteTools(): Promise<BenchResult[]> {
  const rig = await startRig();
  if (!rig) return [];
  const sessionDir = await tempDir('deft-bench-rtools-session-');
  try {
    return [...(await toolRows(rig.sshd, sessionDir)), ...(await turnRows(rig.sshd))];
  } finally {
    await rig.sshd.stop();
    for (const dir of [rig.remoteHome, sessionDir]) await rm(dir, { recursive: true, force: true });
  }
}
