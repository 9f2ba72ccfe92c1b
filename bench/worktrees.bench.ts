import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { defaultCapabilities } from '../main/agent/capabilities';
import { gitBinary } from '../main/agent/infra/git/git';
import { FileSecretStore } from '../main/agent/infra/settings/secrets';
import { Worktrees } from '../main/agent/infra/worktrees/worktrees';
import { SshEnvironment } from '../main/agent/infra/environment/ssh/ssh-environment';
import { remoteFolderId } from '../main/agent/infra/environment/ssh/remote-spec';
import { worktreesOf } from '../main/agent/infra/worktrees/there';
import { startSshd } from '../test-support/sshd';
import { DeftCore } from '../main/agent/runtime/core';
import { cliHost } from '../main/host/hosts';
import { tempDir } from '../test-support/harness';
import { type BenchResult, median } from './types';

// Issue 30: the time to create a worktree session on a committed 20,000-file repository (a worktree made by
// Deft — its checks, `git worktree add` through the hardened git, the worktree.copy files, its record — and a
// session created in it) beside `git worktree add` alone on the same repository. CPU: this process plus
// every child it waited for. Beside them, the same worktree made on a remote folder (the same repository seen over
// loopback SSH through a real sshd: git run there through the Environment, the record and copy over SFTP), with the
// round trips it costs; skipped when sshd is not installed.

const FILES = 20_000;
const RUNS = 5;
const VERSION = 'v1';
const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'b',
  GIT_AUTHOR_EMAIL: 'b@e.invalid',
  GIT_COMMITTER_NAME: 'b',
  GIT_COMMITTER_EMAIL: 'b@e.invalid',
};
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'gc.auto=0', ...args], { cwd, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'] });

/** A committed repository of 20,000 small source files (made once, kept in the temp folder). */
async function repository(): Promise<string> {
  const root = join(tmpdir(), `deft-bench-worktrees-${VERSION}`);
  const marker = `${root}.done`;
  if (await readFile(marker, 'utf8').catch(() => null)) return root;
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  for (let i = 0; i < FILES; i++) {
    const dir = join(root, 'src', `m${Math.floor(i / 1000)}`, `d${Math.floor(i / 50) % 20}`);
    if (i % 50 === 0) await mkdir(dir, { recursive: true });
    await writeFile(join(dir, `f${i}.ts`), `export const value${i} = ${i};\nexport function f${i}(x: number) {\n  return x + ${i};\n}\n`);
  }
  await writeFile(join(root, '.gitignore'), '.env.example\n');
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'add', '.');
  git(root, 'commit', '-qm', 'files');
  await writeFile(marker, 'done\n');
  return root;
}

/** CPU ms of this process and of its children that ended (Linux); null elsewhere. */
function cpuMs(): number | null {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    const own = process.cpuUsage();
    return (Number(fields[13]) + Number(fields[14])) * 10 + (own.user + own.system) / 1000;
  } catch {
    return null;
  }
}

async function measure(run: (i: number) => Promise<void>, undo: (i: number) => Promise<void>): Promise<{ wall: number; cpu: number | null }> {
  let cpu = 0;
  let known = true;
  let i = 0;
  const wall = await median(RUNS, async () => {
    const n = i++;
    const before = cpuMs();
    const t0 = performance.now();
    await run(n);
    const elapsed = performance.now() - t0;
    const after = cpuMs();
    if (before === null || after === null) known = false;
    else cpu += after - before;
    await undo(n);
    return elapsed;
  });
  return { wall, cpu: known ? cpu / RUNS : null };
}

export default async function bench(): Promise<BenchResult[]> {
  if (!gitBinary()) {
    process.stderr.write('  git not found: worktree benchmarks not run\n');
    return [];
  }
  const repo = await repository();
  await writeFile(join(repo, '.env.example'), 'PORT=3000\n');
  const scratch = await tempDir('deft-bench-wt-');
  const home = join(scratch, 'home');
  await mkdir(home);
  try {
    const plain = await measure(
      async (i) => void git(repo, 'worktree', 'add', '-q', '-b', `plain/${i}`, join(scratch, `plain-${i}`), 'HEAD'),
      async (i) => {
        git(repo, 'worktree', 'remove', '--force', join(scratch, `plain-${i}`));
        git(repo, 'branch', '-D', `plain/${i}`);
      },
    );
    const trees = await Worktrees.of(home, repo);
    const secrets = FileSecretStore.inHome(home);
    const createOnly: number[] = [];
    const deft = await measure(
      async (i) => {
        const t0 = performance.now();
        const { record } = await trees.create({ name: `bench-${i}`, copy: ['.env.example'] });
        createOnly.push(performance.now() - t0);
        const core = new DeftCore({ home, workspace: record.path, host: cliHost(), secrets, capabilities: defaultCapabilities });
        await core.handlers.createSession({});
        await core.close();
      },
      async (i) => void (await trees.discard(`bench-${i}`, { deleteBranch: true })),
    );
    const cpu = (a: number | null, b: number | null) => (a === null || b === null ? 'CPU n/a' : `CPU ${(a / 1000).toFixed(2)} s vs ${(b / 1000).toFixed(2)} s`);
    const remote = await remoteCreate(repo, home, createOnly.sort((a, b) => a - b)[Math.floor(createOnly.length / 2)]!);
    return [
      {
        name: `worktree session created (${FILES.toLocaleString('en')} files: worktree, copy, record, session)`,
        value: deft.wall,
        unit: 'ms',
        baseline: { name: 'git worktree add alone', value: plain.wall },
        note: `${cpu(deft.cpu, plain.cpu)} per run; median of ${RUNS}`,
      },
      {
        name: 'of which the worktree alone (Worktrees.create)',
        value: createOnly.sort((a, b) => a - b)[Math.floor(createOnly.length / 2)]!,
        unit: 'ms',
        baseline: { name: 'git worktree add alone', value: plain.wall },
        note: 'the rest is the session: a core on the worktree and createSession',
      },
      ...remote,
    ];
  } finally {
    await rm(scratch, { recursive: true, force: true });
    git(repo, 'worktree', 'prune');
  }
}

/** Worktrees.create on the same repository seen over loopback SSH (the remote home a fresh folder), beside the local one. */
async function remoteCreate(repo: string, home: string, localCreate: number): Promise<BenchResult[]> {
  const sshd = await startSshd();
  if (!sshd) {
    process.stderr.write('  sshd not installed: the remote worktree figure is not measured\n');
    return [];
  }
  const ssh = await SshEnvironment.connect(
    { host: '127.0.0.1', port: sshd.port, username: sshd.username, privateKey: sshd.privateKey, knownHostsFiles: [sshd.knownHosts] },
    repo,
  );
  try {
    const id = remoteFolderId({ user: sshd.username, host: '127.0.0.1', port: sshd.port, path: repo });
    const trees = await worktreesOf(home, { path: repo, environment: ssh, id });
    const count = () => ssh.usage.execChannels + ssh.usage.helperScripts + ssh.usage.sftpRoundTrips;
    let trips = '';
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const before = { ...ssh.usage };
      const start = count();
      const t0 = performance.now();
      await trees.create({ name: `remote-${i}`, copy: ['.env.example'] });
      times.push(performance.now() - t0);
      trips = `${count() - start} round trips (${ssh.usage.helperScripts - before.helperScripts} helper scripts, ${ssh.usage.execChannels - before.execChannels} exec channels, ${ssh.usage.sftpRoundTrips - before.sftpRoundTrips} SFTP)`;
      await trees.discard(`remote-${i}`, { deleteBranch: true });
    }
    const wall = times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
    return [
      {
        name: 'the worktree alone on a remote folder (Worktrees.create over loopback SSH)',
        value: wall,
        unit: 'ms',
        baseline: { name: 'the same on this machine', value: localCreate },
        note: `median of ${RUNS}; ${trips}`,
      },
    ];
  } finally {
    await ssh.close();
    await sshd.stop();
  }
}
