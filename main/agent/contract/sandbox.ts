import type { SandboxBlock, SandboxStatus } from '#protocol';

export type { SandboxBlock, SandboxStatus } from '#protocol';

/** A host and port a sandboxed process tries to reach through Deft's network proxy. */
export interface NetworkTarget {
  host: string;
  port: number;
}

/** Whether a connection may go ahead; a refusal's reason is what the process (and then the model) reads. */
export type NetworkVerdict = { allowed: true } | { allowed: false; reason: string };

/**
 * Decides on each new connection of one sandboxed process. It may take its time (asking the user);
 * the connection waits. `signal` aborts when the process ends.
 */
export type NetworkPolicy = (target: NetworkTarget, signal: AbortSignal) => Promise<NetworkVerdict>;

/** What a capability asks to run. */
export interface SandboxSpawnRequest {
  /** The program and its arguments (argv[0] is looked up on PATH). */
  argv: readonly string[];
  cwd: string;
  /** Variables added to the scrubbed environment (e.g. a task marker). */
  env?: Readonly<Record<string, string>>;
  /** Who is asking, for approvals of new domains ("npm install", "MCP server github"). */
  label: string;
  /** The tool call and turn it belongs to, when it runs for one (approvals show it there). */
  callId?: string;
  turnId?: string;
  /**
   * Overrides the session's network policy (tests, or a capability with its own: an MCP server may reach
   * the internet through the proxy, not this machine). Hosts the settings allow are allowed either way.
   */
  network?: NetworkPolicy;
}

/**
 * How to start the process: spawn `file` with `args`, `env` (complete, not to be merged with
 * process.env) and `cwd`. When `sandboxed` is false the OS sandbox is unavailable or off, and only
 * the environment is scrubbed.
 */
export interface SpawnPlan {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  sandboxed: boolean;
  /** Call once the process (and everything it started) has ended: frees its proxy token and mount points. */
  release(): void;
  /**
   * What the sandbox refused while the process ran: connections the proxy refused, and writes or reads
   * its output reports as refused inside the sandbox (pass the output's tail).
   */
  blocked(output?: string): SandboxBlock[];
}

/**
 * The OS sandbox as a session offers it to capabilities (SessionHandle.sandbox). Every way to run
 * something — Bash, hooks, stdio MCP servers, sub-agents' commands — plans its spawn here, so all of them
 * get the same file system limits, network policy and scrubbed environment.
 */
export interface SessionSandbox {
  /** Whether commands run sandboxed (and why not). */
  status(): Promise<SandboxStatus>;
  /** The session's private temp folder: writable inside the sandbox and set as TMPDIR. */
  readonly tmpDir: string;
  /** Plan a spawn: the sandbox wrapper when the sandbox is on, else the plain command. */
  plan(request: SandboxSpawnRequest): Promise<SpawnPlan>;
  /** The environment commands get, sandboxed or not: Deft's own variables and provider keys removed. */
  env(extra?: Readonly<Record<string, string>>): Promise<Record<string, string>>;
  /** Whether `sandbox.autoAllow` lets sandboxed commands run without asking in accept-edits mode. */
  autoAllow(): Promise<boolean>;
  /**
   * The same sandbox (settings, temp folder, network questions) for commands that work in a git worktree Deft
   * made (an isolated sub-agent's): the worktree writable instead of the workspace, and of the repository only
   * what git needs to commit there, taken from Deft's record of the worktree.
   */
  inWorktree(tree: SandboxWorktree): SessionSandbox;
  /**
   * A remote workspace's: the sandbox its commands and its own hooks run in there (bubblewrap on that machine,
   * infra/sandbox/remote.ts). This object itself stays this machine's, for what runs here (the user's own hooks).
   */
  readonly onRemote?: SessionSandbox;
}

/** A git worktree Deft made, as Deft recorded it when it made it (infra/worktrees/records.ts). */
export interface SandboxWorktree {
  path: string;
  branch: string;
  /** Its git dir and the repository's common git dir; absent in an older record: nothing of the repository is writable. */
  gitDir?: string;
  commonDir?: string;
}

/** The sandbox for what runs for the workspace rather than for one session (MCP servers): no one to ask about the network. */
export interface WorkspaceSandbox extends Pick<SessionSandbox, 'status' | 'plan'> {
  /**
   * Containment only, for a process the user chose not to sandbox: it and everything it starts live in a
   * process namespace of their own that ends with it (no orphans); files, network and environment are not
   * limited. Null where the OS offers no such namespace.
   */
  contain(argv: readonly string[]): { file: string; args: string[] } | null;
}
