import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { ripgrepPath } from '#infra/environment/local/ripgrep-binary';
import type { DeftCore } from '../main/agent/runtime/core';
import { defaultCapabilities } from '../main/agent/capabilities';
import { type CliIo, runCli } from '../main/host/cli/cli';
import { createNodeCore } from '../main/host/compose';
import { cliHost } from '../main/host/hosts';
import { openRemoteForCli, remoteCapabilities } from '../main/host/remote-folder';
import { fastRetry, tempDir } from './harness';
import { MockModelServer } from './mock-model-server';
import { type TestSshd, startSshd } from './sshd';

/**
 * `deft run --remote` against a real sshd and the mock model, for one test file. The sshd runs in a mount namespace of
 * its own where `path` shows another folder, `there`: what happens on the remote machine happens in `there`, and
 * this machine's folder at `path` must stay untouched; the remote user's home is `remoteHome` (its ~/.deft, where the
 * checkpoint store goes, never lands in this machine's home). Each test gets a fresh Deft home, user home (with the
 * server's key authorised and its host key known) and working folder. With `variant`, the same server answers on a
 * second port as a machine lacking some programs (no bwrap, no git): `target(folder, true)`, `run(…, { variant: true })`.
 */
export interface RemoteCliRig {
  readonly sshd: TestSshd;
  readonly server: MockModelServer;
  /** The remote machine's folder, as this machine sees it. */
  readonly there: string;
  /** The workspace's path (on the remote machine it shows `there`; here it is a folder of its own). */
  readonly path: string;
  /** What the remote machine shows as the user's home (Deft's folder there, ~/.deft, lands in it, not in this home). */
  readonly remoteHome: string;
  readonly home: string;
  readonly userHome: string;
  readonly cwd: string;
  /** `user@127.0.0.1:port:/path`, for --remote (`variant`: the port where the variant's PATH applies). */
  target(folder?: string, variant?: boolean): string;
  /** The key the remote folder is trusted and its sessions are kept under. */
  remoteId(folder?: string, variant?: boolean): string;
  /** Trust the remote folder (its host + path key) in this machine's trust store. */
  trust(folder?: string, variant?: boolean): Promise<void>;
  /** `deft ARGS…` as this machine's user would run it. */
  cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** `deft run --base-url … --model m --permission-mode MODE --remote TARGET EXTRA… PROMPT`, with the tool results of the last request. */
  run(
    prompt: string,
    options?: { extra?: readonly string[]; mode?: string; folder?: string; variant?: boolean },
  ): Promise<{ code: number; stdout: string; stderr: string; toolResults: string[] }>;
}

export interface RemoteCliRigOptions {
  /** The remote PATH has ripgrep (a folder holding `rg`, then the system's). */
  ripgrep?: boolean;
  /** false: no folder swapped, `path` is `there` (only the remote home is). */
  bind?: boolean;
  /** A second port of the same server whose PATH is every program of /usr/bin but those `drop` names (and `rg` with `ripgrep`). */
  variant?: { drop(name: string): boolean };
  /** Lines the remote machine's /etc/hosts has and this machine's has not (names only the remote resolves). */
  hosts?: readonly string[];
}

export function remoteCliRig(prefix: string, options: RemoteCliRigOptions = {}): RemoteCliRig {
  const state = {} as { sshd: TestSshd; server: MockModelServer; there: string; path: string; remoteHome: string; home: string; userHome: string; cwd: string };
  beforeAll(async () => {
    let searchPath: string | undefined;
    if (options.ripgrep) {
      const bin = await tempDir(`${prefix}-bin-`);
      await symlink(ripgrepPath(), join(bin, 'rg'));
      searchPath = `${bin}:/usr/local/bin:/usr/bin:/bin`;
    }
    const variants: Array<{ path: string }> = [];
    if (options.variant) {
      // On a merged /usr, /bin is /usr/bin: this folder is the whole PATH.
      const bin = await tempDir(`${prefix}-variant-bin-`);
      for (const name of await readdir('/usr/bin')) if (!options.variant.drop(name)) await symlink(join('/usr/bin', name), join(bin, name));
      if (options.ripgrep) await symlink(ripgrepPath(), join(bin, 'rg')).catch(() => {});
      variants.push({ path: bin });
    }
    state.there = await tempDir(`${prefix}-there-`);
    state.path = options.bind === false ? state.there : await tempDir(`${prefix}-path-`);
    state.remoteHome = await tempDir(`${prefix}-rhome-`);
    const home = { from: state.remoteHome, to: userInfo().homedir };
    const hosts: Array<{ from: string; to: string }> = [];
    if (options.hosts?.length) {
      const file = join(await tempDir(`${prefix}-hosts-`), 'hosts');
      await writeFile(file, `${await readFile('/etc/hosts', 'utf8').catch(() => '127.0.0.1 localhost\n')}\n${options.hosts.join('\n')}\n`);
      hosts.push({ from: file, to: '/etc/hosts' });
    }
    const started = await startSshd({
      ...(searchPath ? { path: searchPath } : {}),
      ...(variants.length ? { variants } : {}),
      binds: options.bind === false ? [home, ...hosts] : [{ from: state.there, to: state.path }, home, ...hosts],
    });
    if (!started) throw new Error('OpenSSH (openssh-server) is not installed: apt-get install openssh-server openssh-client');
    state.sshd = started;
    state.server = new MockModelServer();
    await state.server.start();
  }, 30_000);
  afterAll(async () => {
    await state.server?.close();
    await state.sshd?.stop();
  });
  beforeEach(async () => {
    state.home = await tempDir(`${prefix}-home-`);
    state.userHome = await tempDir(`${prefix}-user-`);
    state.cwd = await tempDir(`${prefix}-cwd-`);
    await mkdir(join(state.userHome, '.ssh'), { mode: 0o700 });
    await writeFile(join(state.userHome, '.ssh', 'id_ed25519'), state.sshd.privateKey, { mode: 0o600 });
    await writeFile(join(state.userHome, '.ssh', 'known_hosts'), await readFile(state.sshd.knownHosts));
  });

  const cli = async (args: readonly string[]) => {
    let stdout = '';
    let stderr = '';
    const io: CliIo = {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      env: { DEFT_HOME: state.home, HOME: state.userHome, USER: state.sshd.username },
      cwd: state.cwd,
      coreOptions: { retry: fastRetry },
    };
    const code = await runCli([...args], io);
    return { code, stdout, stderr };
  };
  const port = (variant: boolean) => (variant ? state.sshd.variants[0]! : state.sshd.port);
  const target = (folder = state.path, variant = false) => `${state.sshd.username}@127.0.0.1:${port(variant)}:${folder}`;
  const remoteId = (folder = state.path, variant = false) => `ssh://${state.sshd.username}@127.0.0.1:${port(variant)}${folder}`;

  return {
    get sshd() {
      return state.sshd;
    },
    get server() {
      return state.server;
    },
    get there() {
      return state.there;
    },
    get path() {
      return state.path;
    },
    get remoteHome() {
      return state.remoteHome;
    },
    get home() {
      return state.home;
    },
    get userHome() {
      return state.userHome;
    },
    get cwd() {
      return state.cwd;
    },
    target,
    remoteId,
    trust: async (folder, variant) => {
      const file = join(state.home, 'trust.json');
      const trust = JSON.parse(await readFile(file, 'utf8').catch(() => '{"folders":{}}')) as { folders: Record<string, unknown> };
      trust.folders[remoteId(folder, variant)] = { trusted: true };
      await writeFile(file, JSON.stringify(trust));
    },
    cli,
    run: async (prompt, { extra = [], mode = 'yolo', folder, variant } = {}) => {
      const args = [
        'run',
        '--base-url',
        state.server.baseUrl,
        '--model',
        'm',
        '--permission-mode',
        mode,
        '--remote',
        target(folder, variant),
        ...extra,
        prompt,
      ];
      const result = await cli(args);
      const last = state.server.requests.at(-1)?.body.messages ?? [];
      return { ...result, toolResults: last.filter((m) => m.role === 'tool').map((m) => String(m.content)) };
    },
  };
}

/**
 * What a remote-sandbox attack test aims at, fresh for each test: a loopback listener that counts connections, a
 * folder outside the workspace (under /var/tmp: /tmp is private in the sandbox), and a private key in the remote ~/.ssh.
 * Call inside a `describe`.
 */
export function remoteAttackTargets(rig: RemoteCliRig, prefix: string): { port: number; connections: number; outside: string } {
  const targets = { port: 0, connections: 0, outside: '' };
  let listener: Server;
  beforeAll(async () => {
    listener = createServer((socket) => {
      targets.connections++;
      socket.destroy();
    });
    await new Promise<void>((done) => listener.listen(0, '127.0.0.1', done));
    targets.port = (listener.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((done) => listener.close(done));
  });
  beforeEach(async () => {
    targets.connections = 0;
    targets.outside = await mkdtemp(`/var/tmp/${prefix}`);
    await mkdir(join(rig.remoteHome, '.ssh'), { recursive: true, mode: 0o700 });
    await writeFile(join(rig.remoteHome, '.ssh', 'id_remote_secret'), 'REMOTE-PRIVATE-KEY\n', { mode: 0o600 });
  });
  return targets;
}

/**
 * A fresh start for a test on a remote repository: the remote folder (`there`) emptied and made a git repository on
 * `main` with one commit (`notes.txt`, "colour: red"), this machine's folder of the same path holding only its own
 * `notes.txt` ("local"), no Deft folder in the remote home. Returns git on `there` for the test's own setup.
 */
export async function freshRemoteRepository(rig: RemoteCliRig): Promise<(...args: string[]) => void> {
  for (const dir of [rig.there, rig.path]) for (const name of await readdir(dir)) await rm(join(dir, name), { recursive: true, force: true });
  await rm(join(rig.remoteHome, '.deft'), { recursive: true, force: true });
  const git = (...args: string[]) => void execFileSync('git', ['-C', rig.there, ...args], { stdio: 'pipe' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.name', 'Remote Dev');
  git('config', 'user.email', 'dev@remote.invalid');
  await writeFile(join(rig.there, 'notes.txt'), 'colour: red\n');
  git('add', 'notes.txt');
  git('commit', '-q', '-m', 'first');
  await writeFile(join(rig.path, 'notes.txt'), 'local\n');
  return git;
}

/**
 * A core on the rig's remote folder (or `folder` there), as a window's (its commands: `core.handlers`), over a
 * connection of its own; `close` stops both. `openFolder` answers the core's asks to open a folder (a worktree) in a window.
 */
export async function remoteCore(
  rig: RemoteCliRig,
  options: { openFolder?: (path: string) => Promise<'here'>; folder?: string } = {},
): Promise<{ core: DeftCore; close: () => Promise<void> }> {
  const remote = await openRemoteForCli(
    { host: '127.0.0.1', port: rig.sshd.port, user: rig.sshd.username, path: options.folder ?? rig.path },
    { HOME: rig.userHome, USER: rig.sshd.username },
  );
  const core = createNodeCore({
    workspace: remote.workspace,
    environment: remote.environment,
    workspaceId: remote.id,
    host: cliHost(() => {}),
    env: { DEFT_HOME: rig.home },
    capabilities: remoteCapabilities(defaultCapabilities),
    ...(options.openFolder ? { openFolder: options.openFolder } : {}),
  });
  return {
    core,
    close: async () => {
      await core.close();
      await remote.environment.close();
    },
  };
}
