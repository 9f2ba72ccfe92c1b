import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { Environment, WorkspacePlace } from '#contract/environment';
import type {
  NetworkPolicy,
  SandboxBlock,
  SandboxSpawnRequest,
  SandboxStatus,
  SandboxWorktree,
  SessionSandbox,
  SpawnPlan,
  WorkspaceSandbox,
} from '#contract/sandbox';
import { blockedWrites, networkHint } from './blocked';
import { scrubbedEnvironment } from './environment';
import { filesystemPolicy } from './filesystem-policy';
import { hiddenPlaces } from './hidden-places';
import { bwrapArgs } from './linux';
import { type FactOp, RemoteFacts, runThere } from './remote-facts';
import { RemoteNetwork } from './remote-network';
import type { ProxyPass } from './proxy';
import type { ConnectionAuthorizer } from './sandbox';
import { type RemoteSupport, linkedGitFactPaths, probeRemote, remoteFactPaths } from './remote-support';
import { type SandboxSettings, SandboxSettingsStore } from './settings';
import { type WorkspaceInputs, inputsChanged, readWorkspaceInputs } from './workspace-inputs';

export interface RemoteSandboxOptions {
  /** The workspace with its key and the machine it is on (an SSH environment). */
  place: WorkspacePlace;
  /** Deft's home on this machine (the user's settings). */
  home: string;
  /** `deft run --sandbox on|off`: wins over the settings. */
  override?: 'on' | 'off';
  /** No one can be asked (deft run): refusals say which setting allows a host. */
  headless?: boolean;
}

/** A spawn plan's wrapper there: make the private folder, the masks and the placeholders, then become bubblewrap. */
const WRAPPER = `d=$1; t=$2; n=$3; shift 3
umask 077
mkdir -p "$d/empty" "$t" || exit 126
chmod 0555 "$d/empty"; [ -e "$d/unreadable" ] || : > "$d/unreadable"; chmod 0000 "$d/unreadable"
while [ "$n" -gt 0 ]; do [ -e "$1" ] || (set -C; printf '.\\n' > "$1") 2>/dev/null; shift; n=$((n-1)); done
exec "$@"`;

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Remove mount points a command's denies made, when still empty (or still the commondir placeholder). */
const TIDY = `for p in "$@"; do if [ -d "$p" ] && [ ! -L "$p" ]; then rmdir -- "$p" 2>/dev/null; elif [ -f "$p" ] && [ ! -L "$p" ] && { [ ! -s "$p" ] || [ "$(cat -- "$p")" = . ]; }; then rm -f -- "$p"; fi; done; true`;

/**
 * The OS sandbox for a workspace on another machine (SSH): bubblewrap there, with the policy of this machine's sandbox
 * (filesystem-policy.ts) planned from facts gathered there in one round trip (remote-facts.ts), never from this disk.
 * Probed once, at the first command or when the window asks; without a working bubblewrap there, commands run under the
 * permission layer alone, and the status says why. Commands reach the network only through Deft's proxy, as here: the
 * policy is decided on this machine, the names are resolved and the connections made there (remote-network.ts); without
 * the relay (no socat there, forwarding refused) they have no network. Sockets outside /tmp and /run are not covered one by one.
 */
export class RemoteSandbox {
  readonly settings: SandboxSettingsStore;
  private support: Promise<RemoteSupport> | undefined;
  private readonly environment: Environment;
  private readonly workspace: string;
  /** Deft's folder there: hidden from commands like Deft's home here. */
  private readonly deftHome: string;
  /** A private folder there for session temp folders and mask files. */
  private readonly dir = `/tmp/deft-sandbox-${randomBytes(8).toString('hex')}`;
  /** The workspace's guarded entries as the first plan read them, before any sandboxed command ran there. */
  private opened: WorkspaceInputs | undefined;
  /** Mount points running commands' denies made there, with how many commands use each. */
  private readonly held = new Map<string, number>();
  /** The last tidying of freed mount points there: a new plan waits for it, so it never reads one about to vanish. */
  private tidying: Promise<unknown> = Promise.resolve();
  private readonly network: RemoteNetwork;

  constructor(private readonly options: RemoteSandboxOptions) {
    this.environment = options.place.environment;
    this.workspace = options.place.path;
    this.deftHome = posix.join(this.environment.home, '.deft');
    this.settings = new SandboxSettingsStore(options.home, options.place);
    this.network = new RemoteNetwork(this.environment, this.dir);
  }

  private probe(): Promise<RemoteSupport> {
    this.support ??= probeRemote(this.environment).catch((error: unknown) => {
      this.support = undefined;
      throw error;
    });
    return this.support;
  }

  async status(settings?: SandboxSettings): Promise<SandboxStatus> {
    const loaded = settings ?? (await this.settings.load());
    const support = await this.probe();
    if (!support.program) return { available: false, enabled: false, reason: support.reason, install: support.install };
    if (this.options.override === 'off') return { available: true, enabled: false, kind: 'bubblewrap', reason: 'Turned off for this run (--sandbox off).' };
    if (this.options.override !== 'on' && !loaded.enabled)
      return { available: true, enabled: false, kind: 'bubblewrap', reason: 'Turned off by "sandbox.enabled": false in settings.' };
    const relay = await this.network.current(support.socat);
    const where = `Bash commands, the folder's own hooks and MCP servers and its language servers run in bubblewrap on ${this.environment.label}: writes only in the workspace and the folders below`;
    const note =
      'reason' in relay
        ? `${where}, and no network: ${relay.reason}.`
        : `${where}; their network is ${this.environment.label}'s, through Deft's proxy with this machine's policy (allowed hosts, questions, address classes; names resolved there).`;
    return { available: true, enabled: true, kind: 'bubblewrap', note };
  }

  forWorkspace(): WorkspaceSandbox {
    const sandbox = this.forSession('workspace', async () => ({ allowed: false, reason: 'Nothing runs for the workspace that could ask about this host.' }));
    return { status: () => sandbox.status(), plan: (request) => sandbox.plan(request), contain: () => null };
  }

  /** The sandbox as one session uses it: `authorize` for connections the settings do not allow (none: refused). */
  forSession(sessionId: string, authorize?: ConnectionAuthorizer, workspace = this.workspace, tree?: SandboxWorktree): SessionSandbox {
    // A worktree Deft made (an isolated sub-agent's): its guarded entries as its first plan read them, its git folders
    // from Deft's record (never from its `.git` file).
    const worktree: WorktreePlace | undefined = tree && { tree };
    const tmpDir = posix.join(this.dir, 'sessions', sessionId.replace(/[^\w.-]/g, '_'), 'tmp');
    return {
      status: () => this.status(),
      tmpDir,
      env: async (extra) => ({ ...extra }),
      autoAllow: async () => (await this.settings.load()).autoAllow,
      inWorktree: (made: SandboxWorktree) => this.forSession(sessionId, authorize, made.path, made),
      plan: (request) => {
        const ask: NetworkPolicy =
          request.network ??
          ((target, signal) =>
            authorize
              ? authorize(
                  {
                    ...target,
                    label: request.label,
                    machine: this.environment.label,
                    ...(request.callId ? { callId: request.callId } : {}),
                    ...(request.turnId ? { turnId: request.turnId } : {}),
                  },
                  signal,
                )
              : Promise.resolve({ allowed: false, reason: 'Nothing could be asked about this host.' }));
        return this.plan(workspace, request, tmpDir, ask, worktree);
      },
    };
  }

  private async plan(workspace: string, request: SandboxSpawnRequest, tmpDir: string, ask: NetworkPolicy, worktree?: WorktreePlace): Promise<SpawnPlan> {
    const [program, ...rest] = request.argv;
    if (!program) throw new Error('Nothing to run: the command is empty.');
    const settings = await this.settings.load();
    const status = await this.status(settings);
    const plain = { file: program, args: rest, env: { ...request.env }, cwd: request.cwd, release: () => {}, blocked: () => [] };
    if (!status.enabled) return { ...plain, sandboxed: false };
    const support = await this.probe();
    await this.tidying;
    const held = (path: string) => this.held.has(path);
    const facts = new RemoteFacts();
    await facts.gather(
      this.environment,
      remoteFactPaths({ workspace, home: this.environment.home, deftHome: this.deftHome, tmpDir, settings, cwd: request.cwd }),
    );
    // A linked worktree (a Deft worktree there): its git folders asked at once, not one question per round.
    await facts.gather(this.environment, linkedGitFactPaths(workspace, facts.read(posix.join(workspace, '.git'), 4096)));
    facts.wanted.clear();
    // Plan, and gather what the plan asked that was not gathered yet, until it asks nothing new.
    for (let round = 0; ; round++) {
      const current = readWorkspaceInputs(workspace, held, facts);
      const opened = workspace === this.workspace ? (this.opened ?? current) : worktree ? worktreeOpened(worktree, current) : current;
      const { tree } = worktree ?? {};
      const policy = filesystemPolicy({
        workspace,
        deftHome: this.deftHome,
        userHome: this.environment.home,
        tmpDir,
        allowWrite: settings.allowWrite,
        denyWrite: settings.denyWrite,
        denyRead: settings.denyRead,
        inputs: { opened, current },
        ...(tree?.gitDir && tree.commonDir ? { recorded: { gitDir: tree.gitDir, commonDir: tree.commonDir, branch: tree.branch } } : {}),
        fs: facts,
      });
      const hidden = hiddenPlaces({
        writeRoots: policy.writeRoots,
        hiddenDirs: policy.denyRead.filter((d) => d.dir).map((d) => d.path),
        keep: [facts.canonical(this.deftHome), facts.canonical(this.environment.home)].filter((p): p is string => p !== null),
        sockets: [],
        fs: facts,
      });
      const gitThere = facts.lstat(posix.join(current.workspace, '.git')) !== null;
      if (facts.wanted.size) {
        if (round >= 5) throw new Error(`The files the sandbox guards on ${this.environment.label} kept changing while it was planned; run the command again.`);
        await facts.gather(this.environment, new Map<string, Set<FactOp>>(facts.wanted));
        continue;
      }
      if (worktree) worktree.opened ??= opened;
      if (workspace === this.workspace) {
        this.opened ??= current;
        const changed = inputsChanged(this.opened, current);
        if (changed) throw new Error(changed);
      }
      // A mount point a running command made is removed when that command ends: mount it as if missing, and hold it too.
      policy.denyWrite = policy.denyWrite.map((d) => (!d.missing && held(d.path) ? { ...d, missing: true } : d));
      const missing = policy.denyWrite.filter((d) => d.missing).map((d) => d.path);
      const placeholders = policy.denyWrite.filter((d) => d.missing && d.placeholder !== undefined).map((d) => d.path);
      for (const path of missing) this.held.set(path, (this.held.get(path) ?? 0) + 1);
      // Deft's own variables start the wrapper and bubblewrap; the request's (a repository's MCP server `env`: PATH,
      // LD_PRELOAD…) are set inside the sandbox only, by bubblewrap — never where they would pick what starts it.
      const env = scrubbedEnvironment({ base: {}, tmpDir, ...(gitThere ? { gitCeiling: posix.dirname(current.workspace) } : {}) });
      const inside = Object.entries(request.env ?? {})
        .filter(([name]) => VAR_NAME.test(name))
        .flatMap(([name, value]) => ['--setenv', name, value]);
      const masks = { emptyDir: posix.join(this.dir, 'empty'), unreadableFile: posix.join(this.dir, 'unreadable') };
      // The network: the relay to Deft's proxy when there is one (the proxy's variables set inside, like the request's).
      const relay = await this.network.current(support.socat).catch(() => null);
      const net = relay && !('reason' in relay) ? this.network.plan(relay, settings, ask, [program, ...rest]) : null;
      const command = net?.argv ?? [program, ...rest];
      if (net) inside.push(...Object.entries(net.env).flatMap(([name, value]) => ['--setenv', name, value]));
      const pass: ProxyPass | null = net?.pass ?? null;
      const args = bwrapArgs({ policy, masks, cwd: request.cwd, hidden, userArgs: [], ownNetwork: true, ...(net ? { sockets: [net.bind] } : {}) });
      const headless = this.options.headless ?? false;
      let released = false;
      return {
        file: 'sh',
        args: ['-c', WRAPPER, 'sh', this.dir, tmpDir, String(placeholders.length), ...placeholders, support.program!, ...args, ...inside, '--', ...command],
        env,
        cwd: request.cwd,
        sandboxed: true,
        release: () => {
          if (released) return;
          released = true;
          pass?.release();
          this.release(missing);
        },
        blocked: (output) => [...networkBlocks(pass, headless), ...blockedWrites(output ?? '', policy, request.cwd)],
      };
    }
  }

  /** Wait for the last tidying there (before the connection is closed), and stop the network relay. */
  async close(): Promise<void> {
    await this.tidying;
    await this.network.close();
  }

  private release(paths: readonly string[]): void {
    const free: string[] = [];
    for (const path of paths) {
      const left = (this.held.get(path) ?? 1) - 1;
      if (left > 0) this.held.set(path, left);
      else {
        this.held.delete(path);
        free.push(path);
      }
    }
    if (free.length) this.tidying = runThere(this.environment, TIDY, free).catch(() => {});
  }
}

/** The connections Deft's proxy refused a command, with how to allow each (as for a command here). */
function networkBlocks(pass: ProxyPass | null, headless: boolean): SandboxBlock[] {
  return (pass?.refused ?? []).map((r) => ({ kind: 'network' as const, target: `${r.host}:${r.port}`, hint: r.hint ?? networkHint(r.host, r.port, headless) }));
}

/** A worktree Deft made, as a place for commands there, and its guarded entries as its first plan read them. */
interface WorktreePlace {
  readonly tree: SandboxWorktree;
  opened?: WorkspaceInputs;
}

/**
 * What a worktree's plan takes as read at its opening: its first reading (they only add walls); without git folders in
 * Deft's record, nothing of the repository is writable (whatever its `.git` file names).
 */
function worktreeOpened(worktree: WorktreePlace, current: WorkspaceInputs): WorkspaceInputs {
  const opened = worktree.opened ?? current;
  if (worktree.tree.gitDir && worktree.tree.commonDir) return opened;
  return { ...opened, git: opened.git && { ...opened.git, linked: false } };
}

/**
 * A remote workspace's session sandbox: this machine's (for the user's own hooks, which run here) carrying the remote
 * one as `onRemote` — in a worktree there too, so that an isolated sub-agent's commands run in bubblewrap there, in
 * its worktree (this machine's part stays as it is: the worktree is not on this disk).
 */
export function withRemote(here: SessionSandbox, there: SessionSandbox): SessionSandbox {
  return { ...here, onRemote: there, inWorktree: (tree) => withRemote(here, there.inWorktree(tree)) };
}
