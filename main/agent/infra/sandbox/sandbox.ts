import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type {
  NetworkPolicy,
  NetworkTarget,
  SandboxBlock,
  SandboxSpawnRequest,
  SandboxStatus,
  SandboxWorktree,
  SessionSandbox,
  SpawnPlan,
  WorkspaceSandbox,
} from '#contract/sandbox';
import { type SandboxSupport, sandboxPresence, sandboxSupport } from './availability';
import { addressCheck } from './address-check';
import { blockedWrites, networkHint } from './blocked';
import { domainAllows } from './domains';
import { scrubbedEnvironment } from './environment';
import { type FilesystemPolicy, type RecordedWorktree, filesystemPolicy } from './filesystem-policy';
import { hiddenPlaces, ownInstallPlaces } from './hidden-places';
import { type WorkspaceInputs, inputsChanged, readWorkspaceInputs } from './workspace-inputs';
import { MountPoints, bwrapArgs, containArgs, createMaskFiles } from './linux';
import { SANDBOX_PROXY_PORT, linuxSandboxNetwork } from './linux-network';
import { seatbeltProfile } from './macos';
import { NetworkProxy, type ProxyPass, proxyEnvironment } from './proxy';
import { type SandboxSettings, SandboxSettingsStore } from './settings';
import { canonicalPath } from '../policies/protected-paths';
import type { WorkspacePlace } from '#contract/environment';

export interface SandboxOptions {
  workspace: string;
  /** The workspace with its key (trust) and machine (its settings files); default: the local folder `workspace`. */
  place?: WorkspacePlace;
  /** Deft's home (~/.deft). */
  home: string;
  userHome?: string;
  /** `deft run --sandbox on|off`: wins over the settings. */
  override?: 'on' | 'off';
  /** Secret values Deft holds (API keys): no command's environment carries them. */
  secrets?: () => Promise<string[]>;
  /** No one can be asked (deft run): refusals say which setting allows a host. */
  headless?: boolean;
  /** What the OS offers (detected when omitted; tests pass their own). */
  support?: SandboxSupport;
  /** The environment commands start from (default: this process's). */
  baseEnv?: Readonly<Record<string, string | undefined>>;
}

/** A connection a sandboxed process wants, with who wants it. */
export interface ConnectionRequest extends NetworkTarget {
  label: string;
  callId?: string;
  turnId?: string;
  /** The other machine it runs on (a remote workspace's sandbox): the connection would leave from there. */
  machine?: string;
}

/** Decides on connections the settings do not allow (asks the user, or refuses). */
export type ConnectionAuthorizer = (request: ConnectionRequest, signal: AbortSignal) => Promise<{ allowed: true } | { allowed: false; reason: string }>;

// Per process: a private folder for session temp folders and mask files, and the macOS proxy.
let privateDir: string | undefined;
function processDir(): string {
  if (!privateDir) {
    const dir = mkdtempSync(join(tmpdir(), 'deft-sandbox-'));
    privateDir = dir;
    // The sessions' temp folders (commands' $TMPDIR) and the network bridge's sockets: gone with the process, whose
    // exit hook has stopped what its commands left running. A crash leaves it, as any temp folder.
    process.once('exit', () => {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // Best effort: the process is ending.
      }
    });
  }
  return privateDir;
}
let macProxy: Promise<NetworkProxy> | undefined;
const mountPoints = new MountPoints();

/** Where commands run: the core's workspace, or a worktree Deft made (an isolated sub-agent's). */
interface Place {
  workspace: string;
  /** Its `.git`, `.deft`, `.claude` and `.mcp.json` as they were when it was opened: what the policy may take as given. */
  opened: WorkspaceInputs;
  /** A worktree Deft made: its git folders as Deft recorded them. */
  recorded?: RecordedWorktree;
}

/**
 * The OS sandbox for one workspace: every command Deft runs is planned here. On Linux bubblewrap, on
 * macOS Seatbelt; elsewhere (or when turned off) commands run as before, with the scrubbed environment.
 */
export class Sandbox {
  readonly settings: SandboxSettingsStore;
  private detected: SandboxSupport | undefined;
  /** The core's workspace, read when it was opened. */
  private readonly main: Place;

  constructor(private readonly options: SandboxOptions) {
    this.settings = new SandboxSettingsStore(options.home, options.place ?? options.workspace);
    this.main = { workspace: options.workspace, opened: readWorkspaceInputs(options.workspace) };
  }

  /** Probed when first needed (the first command, or the window asking): a run that starts nothing never probes. */
  private get support(): SandboxSupport {
    this.detected ??= this.options.support ?? sandboxSupport();
    return this.detected;
  }

  async status(settings?: SandboxSettings): Promise<SandboxStatus> {
    const loaded = settings ?? (await this.settings.load());
    const off = this.turnedOff(loaded);
    // Turned off: what is there is said without bubblewrap's probe run, left for when it is turned on.
    const { kind, reason, install } = off ? this.present : this.support;
    if (!kind) return { available: false, enabled: false, ...(reason ? { reason } : {}), ...(install ? { install } : {}) };
    if (off) return { available: true, enabled: false, kind, reason: off };
    return { available: true, enabled: true, kind };
  }

  /** Why commands run outside the sandbox although it may be there (`--sandbox off`, the settings), or null. */
  private turnedOff(settings: SandboxSettings | null): string | null {
    if (this.options.override === 'off') return 'Turned off for this run (--sandbox off).';
    if (settings && this.options.override !== 'on' && !settings.enabled) return 'Turned off by "sandbox.enabled": false in settings.';
    return null;
  }

  /** The sandbox's program as known without a probe run (the probe's verdict once it ran). */
  private get present(): SandboxSupport {
    return this.detected ?? this.options.support ?? sandboxPresence();
  }

  /**
   * The sandbox for what runs for the workspace rather than a session (MCP servers): a temp folder of its
   * own; with no one to ask, a connection neither the settings nor the request's own policy allow is refused.
   */
  forWorkspace(): WorkspaceSandbox {
    const sandbox = this.forSession('workspace', async () => ({ allowed: false, reason: 'Nothing runs for the workspace that could ask about this host.' }));
    return {
      status: () => sandbox.status(),
      plan: (request) => sandbox.plan(request),
      contain: (argv) => (this.support.kind === 'bubblewrap' && argv.length ? { file: this.support.program!, args: [...containArgs(), '--', ...argv] } : null),
    };
  }

  /** The sandbox as one session uses it: its own temp folder, and `authorize` for connections the settings do not allow. */
  forSession(sessionId: string, authorize: ConnectionAuthorizer): SessionSandbox {
    return this.sessionSandbox(sessionId, authorize, this.main);
  }

  private sessionSandbox(sessionId: string, authorize: ConnectionAuthorizer, place: Place): SessionSandbox {
    const tmpDir = join(processDir(), 'sessions', sessionId, 'tmp');
    const ensureTmp = () => {
      if (!existsSync(tmpDir)) mkdirSync(tmpDir, { recursive: true, mode: 0o700 });
    };
    return {
      status: () => this.status(),
      tmpDir,
      env: async (extra) => {
        ensureTmp();
        return this.environment(place, tmpDir, extra);
      },
      autoAllow: async () => (await this.settings.load()).autoAllow,
      inWorktree: (tree) => this.sessionSandbox(sessionId, authorize, worktreePlace(tree)),
      plan: async (request) => {
        ensureTmp();
        const policy: NetworkPolicy =
          request.network ??
          ((target, signal) =>
            authorize(
              { ...target, label: request.label, ...(request.callId ? { callId: request.callId } : {}), ...(request.turnId ? { turnId: request.turnId } : {}) },
              signal,
            ));
        return this.plan(place, request, tmpDir, policy);
      },
    };
  }

  private async environment(place: Place, tmpDir: string, extra?: Readonly<Record<string, string>>): Promise<Record<string, string>> {
    const secrets = (await this.options.secrets?.().catch(() => [])) ?? [];
    const gitCeiling = existsSync(join(place.workspace, '.git')) ? dirname(place.workspace) : undefined;
    return scrubbedEnvironment({
      ...(this.options.baseEnv ? { base: this.options.baseEnv } : {}),
      secrets,
      tmpDir,
      ...(gitCeiling ? { gitCeiling } : {}),
      ...(extra ? { extra } : {}),
    });
  }

  private async plan(place: Place, request: SandboxSpawnRequest, tmpDir: string, network: NetworkPolicy): Promise<SpawnPlan> {
    // Before the settings are read: a guarded link swapped since the opening could lead to other settings.
    const current = !this.turnedOff(null) && this.present.kind ? readWorkspaceInputs(place.workspace, (path) => mountPoints.holds(path)) : place.opened;
    const changed = inputsChanged(place.opened, current);
    if (changed) throw new Error(changed);
    const settings = await this.settings.load();
    const status = await this.status(settings);
    const env = await this.environment(place, tmpDir, request.env);
    const [program, ...rest] = request.argv;
    if (!program) throw new Error('Nothing to run: the command is empty.');
    if (!status.enabled) return { file: program, args: rest, env, cwd: request.cwd, sandboxed: false, release: () => {}, blocked: () => [] };

    const userHome = this.options.userHome ?? homedir();
    const policy = filesystemPolicy({
      workspace: place.workspace,
      deftHome: this.options.home,
      userHome,
      tmpDir,
      allowWrite: settings.allowWrite,
      denyWrite: settings.denyWrite,
      denyRead: settings.denyRead,
      inputs: { opened: place.opened, current },
      ...(place.recorded ? { recorded: place.recorded } : {}),
    });
    // Domains the settings allow need no one; the rest go to the session (which asks, or refuses).
    const guarded: NetworkPolicy = async (target, signal) => {
      if (settings.allowedDomains.some((entry) => domainAllows(entry, target.host, target.port))) return { allowed: true };
      return network(target, signal);
    };
    // A mount point a running command made is removed when that command ends: mount it as if missing, and hold it too.
    policy.denyWrite = policy.denyWrite.map((d) => (!d.missing && mountPoints.holds(d.path) ? { ...d, missing: true } : d));
    const missing = policy.denyWrite.filter((d) => d.missing).map((d) => d.path);
    mountPoints.acquire(missing);
    if (this.support.kind === 'bubblewrap') mountPoints.placeholders(policy.denyWrite);
    const hidden = () =>
      hiddenPlaces({
        writeRoots: policy.writeRoots,
        hiddenDirs: policy.denyRead.filter((d) => d.dir).map((d) => d.path),
        keep: [canonicalPath(this.options.home), canonicalPath(userHome), ...ownInstallPlaces().map(canonicalPath)],
      });
    let pass: ProxyPass | null = null;
    let file: string;
    let args: string[];
    try {
      if (this.support.kind === 'bubblewrap') {
        const shared = await linuxSandboxNetwork(this.support);
        pass = shared?.proxy.register(guarded, addressCheck(settings)) ?? null;
        if (pass) Object.assign(env, proxyEnvironment(NetworkProxy.url(pass.token, SANDBOX_PROXY_PORT)));
        const bwrap = [
          this.support.program!,
          ...bwrapArgs({
            policy,
            masks: createMaskFiles(processDir()),
            cwd: request.cwd,
            hidden: hidden(),
            userArgs: shared?.userArgs ?? [],
            ownNetwork: !shared,
          }),
          '--',
          program,
          ...rest,
        ];
        const argv = shared ? [...shared.enter, ...bwrap] : bwrap;
        file = argv[0]!;
        args = argv.slice(1);
      } else {
        macProxy ??= NetworkProxy.listen({ host: '127.0.0.1' });
        const proxy = await macProxy;
        const port = proxy.address && 'port' in proxy.address ? proxy.address.port : null;
        pass = proxy.register(guarded, addressCheck(settings));
        if (port !== null) Object.assign(env, proxyEnvironment(NetworkProxy.url(pass.token, port)));
        file = this.support.program!;
        args = ['-p', seatbeltProfile({ policy, proxyPort: port }), '--', program, ...rest];
      }
    } catch (error) {
      pass?.release();
      mountPoints.release(missing);
      throw error;
    }
    let released = false;
    const headless = this.options.headless ?? false;
    return {
      file,
      args,
      env,
      cwd: request.cwd,
      sandboxed: true,
      release: () => {
        if (released) return;
        released = true;
        pass?.release();
        mountPoints.release(missing);
      },
      blocked: (output) => blockedFor(pass, policy, output ?? '', request.cwd, headless),
    };
  }
}

/**
 * A worktree Deft made, as a place for commands: its guarded entries read now (they only add walls), its git
 * folders from Deft's record. Without a record of them nothing of the repository is writable (commits fail).
 */
function worktreePlace(tree: SandboxWorktree): Place {
  const opened = readWorkspaceInputs(tree.path);
  if (!tree.gitDir || !tree.commonDir) return { workspace: tree.path, opened: { ...opened, git: opened.git && { ...opened.git, linked: false } } };
  return { workspace: tree.path, opened, recorded: { gitDir: tree.gitDir, commonDir: tree.commonDir, branch: tree.branch } };
}

function blockedFor(pass: ProxyPass | null, policy: FilesystemPolicy, output: string, cwd: string, headless: boolean): SandboxBlock[] {
  const network = (pass?.refused ?? []).map((r) => ({
    kind: 'network' as const,
    target: `${r.host}:${r.port}`,
    hint: r.hint ?? networkHint(r.host, r.port, headless),
  }));
  return [...network, ...blockedWrites(output, policy, cwd)];
}
