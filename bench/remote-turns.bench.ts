import { copyFile, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type CliIo, runCli } from '../main/host/cli/cli';
import { fastRetry, tempDir } from '../test-support/harness';
import { MockModelServer } from '../test-support/mock-model-server';
import { callChunk, textReply, toolStep } from '../test-support/mock-steps';
import { SshEnvironment } from '../main/agent/infra/environment/ssh/ssh-environment';
import { type TestSshd, startSshd } from '../test-support/sshd';
import type { BenchResult } from './types';

// Remote checkpoints (issue 29): a `deft run --remote` turn on a folder over loopback SSH, text-only and with one
// Write, with checkpoints on beside the same turn with checkpoints off, in the same run: wall time, this process's
// CPU, and the remote side's CPU (every process sshd ran for the connection: login shells, git). The remote user's
// shell start-up files are this machine's user's (~/.bashrc with whatever it runs, e.g. `pyenv init`), since every
// remote process pays them.

const RUNS = Number(process.env.RUNS ?? 5);
const TICK_MS = 10;

/** CPU of the sshd's finished connections (their processes and every child they waited for), ms. */
async function remoteCpuMs(pidFile: string): Promise<number> {
  const pid = (await readFile(pidFile, 'utf8')).trim();
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // cutime and cstime: fields 16 and 17 of /proc/pid/stat (13 and 14 after the command name).
  return (Number(fields[13]) + Number(fields[14])) * TICK_MS;
}

/**
 * What one remote command costs (the user's Bash over SSH: sshd runs it as `$SHELL -c`, and bash reads ~/.bashrc for
 * it) beside the same on the connection's helper shell (the login's start-up paid once): medians of wall time, ms.
 */
async function commandCost(sshd: TestSshd): Promise<{ exec: number; helper: number }> {
  const env = await SshEnvironment.connect({
    host: '127.0.0.1',
    port: sshd.port,
    username: sshd.username,
    privateKey: sshd.privateKey,
    knownHostsFiles: [sshd.knownHosts],
  });
  const timed = async (run: () => Promise<unknown>) => {
    await run();
    const times: number[] = [];
    for (let i = 0; i < RUNS * 3; i++) {
      const t0 = performance.now();
      await run();
      times.push(performance.now() - t0);
    }
    return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
  };
  try {
    const exec = await timed(async () => {
      const child = env.exec({ file: 'true', args: [], cwd: '/' });
      child.stdout.resume();
      child.stderr.resume();
      await child.exit;
    });
    return { exec, helper: await timed(() => env.runScript({ script: 'true', args: [], cwd: '/' })) };
  } finally {
    await env.close();
  }
}

interface Cost {
  wallMs: number;
  cpuMs: number;
  remoteCpuMs: number;
  /** Exec channels opened there (each a process sshd starts through the login shell: the helper, a command, git…). */
  channels: number;
  /** Scripts run on the connection's helper shell, and SFTP round trips. */
  helperScripts: number;
  sftpRoundTrips: number;
  /** Login shells started ahead of a command (warm-shell.ts), and commands that ran on one. */
  shellsAhead: number;
  warmShells: number;
}

export default async function remoteTurns(): Promise<BenchResult[]> {
  const remoteHome = await tempDir('deft-bench-rturns-rhome-');
  const userHome = homedir();
  for (const name of ['.bashrc', '.profile']) await copyFile(join(userHome, name), join(remoteHome, name)).catch(() => {});
  // ~/.pyenv as it is here: the remote home is bound over this home in the sshd's mount namespace, where a link to
  // ~/.pyenv would point at itself (and `pyenv init` fail at once). So it is bound aside first, then back in place.
  const binds = [{ from: remoteHome, to: userInfo().homedir }];
  if (await stat(join(userHome, '.pyenv')).catch(() => null)) {
    const aside = await tempDir('deft-bench-rturns-pyenv-');
    await mkdir(join(remoteHome, '.pyenv'));
    binds.unshift({ from: join(userHome, '.pyenv'), to: aside });
    binds.push({ from: aside, to: join(userInfo().homedir, '.pyenv') });
  }
  const sshd = await startSshd({ binds });
  if (!sshd) return [];
  const server = new MockModelServer();
  await server.start();
  const workspace = await tempDir('deft-bench-rturns-ws-');
  for (let i = 0; i < 200; i++) await writeFile(join(workspace, `f${i}.txt`), `file ${i}\n`.repeat(50));
  const homes = { on: await tempDir('deft-bench-rturns-on-'), off: await tempDir('deft-bench-rturns-off-') };
  await writeFile(join(homes.off, 'settings.json'), JSON.stringify({ checkpoints: { enabled: false } }));
  const local = await tempDir('deft-bench-rturns-user-');
  await mkdir(join(local, '.ssh'), { mode: 0o700 });
  await writeFile(join(local, '.ssh', 'id_ed25519'), sshd.privateKey, { mode: 0o600 });
  await writeFile(join(local, '.ssh', 'known_hosts'), await readFile(sshd.knownHosts));
  const target = `${sshd.username}@127.0.0.1:${sshd.port}:${workspace}`;
  const pidFile = join(sshd.dir, 'sshd.pid');

  const turn = async (home: string, prompt: string): Promise<Cost> => {
    const io: CliIo = {
      stdout: () => {},
      stderr: () => {},
      env: { DEFT_HOME: home, HOME: local, USER: sshd.username },
      cwd: local,
      coreOptions: { retry: fastRetry },
    };
    const remoteBefore = await remoteCpuMs(pidFile);
    const usage = { ...SshEnvironment.processUsage };
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    const code = await runCli(['run', '--base-url', server.baseUrl, '--model', 'm', '--permission-mode', 'yolo', '--remote', target, prompt], io);
    const wallMs = performance.now() - t0;
    const used = process.cpuUsage(cpu);
    if (code !== 0) throw new Error(`deft run --remote (${prompt}) exited with ${code}`);
    // The connection's processes end (and are counted) once it is gone.
    for (let i = 0; i < 100 && (await sshd.connectionCount()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    const now = SshEnvironment.processUsage;
    return {
      wallMs,
      cpuMs: (used.user + used.system) / 1000,
      remoteCpuMs: (await remoteCpuMs(pidFile)) - remoteBefore,
      channels: now.execChannels - usage.execChannels,
      helperScripts: now.helperScripts - usage.helperScripts,
      sftpRoundTrips: now.sftpRoundTrips - usage.sftpRoundTrips,
      shellsAhead: now.shellsAhead - usage.shellsAhead,
      warmShells: now.warmShells - usage.warmShells,
    };
  };
  const costs: Record<string, Cost[]> = {};
  let command: { exec: number; helper: number };
  try {
    command = await commandCost(sshd);
    // The first turn of each (the store made and the workspace captured once) is not counted.
    for (const mode of ['on', 'off'] as const) {
      server.enqueue(textReply('Hello.'));
      await turn(homes[mode], 'hello');
    }
    for (let i = 0; i < RUNS; i++) {
      for (const mode of ['on', 'off'] as const) {
        server.enqueue(textReply('Just words.'));
        (costs[`text-${mode}`] ??= []).push(await turn(homes[mode], 'say something'));
        server.enqueue(toolStep(callChunk('Write', { path: join(workspace, `f${i}.txt`), content: `turn ${i} ${mode}\n` })), textReply('Wrote it.'));
        (costs[`edit-${mode}`] ??= []).push(await turn(homes[mode], 'write a file'));
        // One command, then the answer: a one-shot run that starts no shell it does not use.
        server.enqueue(toolStep(callChunk('Bash', { command: 'true', description: 'nothing' })), textReply('Ran it.'));
        (costs[`bash-${mode}`] ??= []).push(await turn(homes[mode], 'run a command'));
      }
    }
  } finally {
    await server.close();
    await sshd.stop();
    for (const dir of [remoteHome, workspace, homes.on, homes.off, local]) await rm(dir, { recursive: true, force: true });
  }
  const median = (list: Cost[], key: keyof Cost) => [...list.map((c) => c[key])].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
  const rows = (kind: string, title: string): BenchResult[] => {
    const [on, off] = [costs[`${kind}-on`]!, costs[`${kind}-off`]!];
    const note = `+${(median(on, 'wallMs') - median(off, 'wallMs')).toFixed(0)} ms per turn`;
    return [
      {
        name: `remote ${title} with checkpoints (loopback SSH): wall`,
        value: median(on, 'wallMs'),
        unit: 'ms',
        baseline: { name: 'checkpoints off', value: median(off, 'wallMs') },
        note,
      },
      {
        name: `remote ${title} with checkpoints: CPU here`,
        value: median(on, 'cpuMs'),
        unit: 'ms',
        baseline: { name: 'checkpoints off', value: median(off, 'cpuMs') },
      },
      {
        name: `remote ${title} with checkpoints: CPU there (sshd, shells, git)`,
        value: median(on, 'remoteCpuMs'),
        unit: 'ms',
        baseline: { name: 'checkpoints off', value: median(off, 'remoteCpuMs') },
      },
      {
        name: `remote ${title} with checkpoints: processes started there (exec channels)`,
        value: median(on, 'channels'),
        unit: 'channels',
        baseline: { name: 'checkpoints off', value: median(off, 'channels') },
        note: `helper scripts ${median(on, 'helperScripts')} vs ${median(off, 'helperScripts')}, SFTP round trips ${median(on, 'sftpRoundTrips')} vs ${median(off, 'sftpRoundTrips')}, login shells started ahead ${median(on, 'shellsAhead')} vs ${median(off, 'shellsAhead')} (commands run on one ${median(on, 'warmShells')} vs ${median(off, 'warmShells')})`,
      },
    ];
  };
  return [
    ...rows('text', 'text-only `deft run` turn'),
    ...rows('edit', '`deft run` turn with one Write'),
    ...rows('bash', '`deft run` turn with one Bash command'),
    {
      name: 'a remote command (`true`, a login shell per command)',
      value: command.exec,
      unit: 'ms',
      baseline: { name: 'on the helper shell', value: command.helper },
    },
  ];
}
