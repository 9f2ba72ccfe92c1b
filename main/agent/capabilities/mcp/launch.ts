import { delimiter, isAbsolute, join, posix, resolve, sep } from 'node:path';
import type { WorkspaceSandbox } from '#contract/sandbox';
import { internetOnly } from '#infra/sandbox/public-network';
import type { ServerSource } from './config';

/** How a stdio server's process is started: directly, or planned by the OS sandbox. */
export interface LaunchRequest {
  argv: string[];
  cwd: string;
  /** The workspace: the user's own servers get nothing of it on their search paths. */
  workspace: string;
  env: Record<string, string>;
  label: string;
  /** Where its definition came from: a workspace's own servers come with the repository. */
  source: ServerSource;
}
export interface LaunchPlan {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Whether it runs in the OS sandbox. */
  sandboxed?: boolean;
  release(): void;
}
export type StdioLauncher = (request: LaunchRequest) => Promise<LaunchPlan>;

/** Which stdio servers run in the OS sandbox (settings `mcp.sandbox`). */
export type McpSandboxChoice = 'project' | 'all' | 'off';

/** Variables that list folders a program searches for commands or modules. */
const SEARCH_PATHS = ['PATH', 'NODE_PATH', 'PYTHONPATH', 'PYTHONUSERBASE', 'PERL5LIB', 'RUBYLIB', 'GEM_PATH', 'CLASSPATH'];

/**
 * The environment with every search path cleared of what would find the workspace's copy of a program:
 * relative and empty entries (they mean the working folder, e.g. `node_modules/.bin` in PATH) and folders
 * inside the workspace.
 */
export function withoutWorkspaceSearchPaths(env: Record<string, string>, workspace: string): Record<string, string> {
  const root = resolve(workspace);
  const inside = (entry: string) =>
    !entry || !isAbsolute(entry) || resolve(entry) === root || resolve(entry).startsWith(root.endsWith(sep) ? root : root + sep);
  const out = { ...env };
  for (const name of SEARCH_PATHS) {
    if (out[name] === undefined) continue;
    out[name] = out[name]
      .split(delimiter)
      .filter((entry) => !inside(entry))
      .join(delimiter);
  }
  return out;
}

/** The SDK's minimal environment for a stdio server (loaded with the first server that starts). */
async function defaultEnvironment(): Promise<Record<string, string>> {
  return (await import('@modelcontextprotocol/sdk/client/stdio.js')).getDefaultEnvironment();
}

/**
 * Runs the command as configured, with the SDK's minimal environment (PATH, HOME, …) plus the server's `env`.
 * The user's own servers (not a workspace's) never search the workspace for their program or its modules.
 */
export const directLauncher: StdioLauncher = async (request) => {
  const env = { ...(await defaultEnvironment()), ...request.env };
  return {
    file: request.argv[0]!,
    args: request.argv.slice(1),
    env: request.source === 'project' ? env : withoutWorkspaceSearchPaths(env, request.workspace),
    cwd: request.cwd,
    release: () => {},
  };
};

/**
 * Starts a server inside the OS sandbox when the setting covers it — by default the servers a workspace
 * ships (`project`), `all`, or none (`off`): it may write only the workspace and its own temp folder, never
 * Deft's home, `.git/hooks` or the settings, nor read credential stores; it has a network of its own, as
 * commands do, whose only way out is Deft's proxy: any host on the internet (a server is a network client
 * by nature, and the user approved it as such), nothing on this machine or the local network unless the
 * settings allow it — no loopback service, no abstract unix socket (an X11 display); and everything it
 * starts dies with it. Package runners get a cache in its temp folder (`npx -y …` works; the user's own npm cache
 * cannot be poisoned from inside). Where there is no sandbox, it starts as configured. A server left out
 * of the sandbox is still contained where the OS allows: nothing it starts outlives it.
 */
export function sandboxedLauncher(sandbox: WorkspaceSandbox, choice: () => Promise<McpSandboxChoice>): StdioLauncher {
  return async (request) => {
    const which = await choice();
    if (which === 'off' || (which === 'project' && request.source !== 'project')) {
      // Not sandboxed, still contained: whatever the server starts ends with it.
      const direct = await directLauncher(request);
      const contained = sandbox.contain([direct.file, ...direct.args]);
      return contained ? { ...direct, ...contained } : direct;
    }
    const plan = await sandbox.plan({ argv: request.argv, cwd: request.cwd, label: request.label, network: internetOnly });
    if (!plan.sandboxed) {
      plan.release();
      return directLauncher(request);
    }
    const tmp = plan.env.TMPDIR;
    const caches: Record<string, string> = tmp
      ? { TMPDIR: tmp, npm_config_cache: join(tmp, 'npm-cache'), UV_CACHE_DIR: join(tmp, 'uv-cache'), XDG_CACHE_HOME: join(tmp, 'cache') }
      : {};
    // Its way out: the proxy variables the plan set (no other variable of Deft's reaches a server).
    const proxy = Object.fromEntries(Object.entries(plan.env).filter(([name]) => /^((https?|all|no)_proxy|NODE_USE_ENV_PROXY)$/i.test(name)));
    const env = { ...(await defaultEnvironment()), ...caches, ...proxy, ...request.env };
    return {
      file: plan.file,
      args: plan.args,
      cwd: plan.cwd,
      env: request.source === 'project' ? env : withoutWorkspaceSearchPaths(env, request.workspace),
      sandboxed: true,
      release: () => plan.release(),
    };
  };
}

/** A remote workspace's own stdio server, as it is to start on that machine (its cwd and paths are that machine's). */
export interface RemoteLaunchRequest {
  file: string;
  args: readonly string[];
  cwd: string;
  /** Added to the login environment there. */
  env: Record<string, string>;
  label: string;
}
export type RemoteLauncher = (request: RemoteLaunchRequest) => Promise<LaunchPlan>;

/**
 * How a remote workspace's own stdio servers start there: inside that machine's sandbox (bubblewrap there,
 * infra/sandbox/remote.ts) when `mcp.sandbox` covers the workspace's servers (`project`, the default, or `all`), as a
 * local workspace's do here — the workspace writable, secret places hidden, its caches in its temp folder there, and
 * the same network: public hosts through Deft's proxy, reached from that machine (docs/remote.md). Where that machine has no working bubblewrap
 * (or the sandbox is off, or `mcp.sandbox` is `off`) it starts as configured, as the remote user.
 */
export function remoteSandboxedLauncher(sandbox: Pick<WorkspaceSandbox, 'plan'> | undefined, choice: () => Promise<McpSandboxChoice>): RemoteLauncher {
  return async (request) => {
    const direct: LaunchPlan = { file: request.file, args: [...request.args], cwd: request.cwd, env: request.env, release: () => {} };
    if ((await choice()) === 'off') return direct;
    // A server meant for the sandbox never starts outside it for want of one: that machine's is always handed in.
    if (!sandbox) throw new Error('no sandbox for the remote machine was given to start it in');
    const plan = await sandbox.plan({ argv: [request.file, ...request.args], cwd: request.cwd, env: request.env, label: request.label, network: internetOnly });
    if (!plan.sandboxed) {
      plan.release();
      return direct;
    }
    const tmp = plan.env.TMPDIR;
    const caches: Record<string, string> = tmp
      ? { npm_config_cache: posix.join(tmp, 'npm-cache'), UV_CACHE_DIR: posix.join(tmp, 'uv-cache'), XDG_CACHE_HOME: posix.join(tmp, 'cache') }
      : {};
    // Its own `env` is set inside the sandbox by the plan (bubblewrap's --setenv): here only Deft's variables, which
    // start the wrapper there (a repository's PATH must not choose the programs that set the sandbox up).
    return { file: plan.file, args: plan.args, cwd: plan.cwd, env: { ...plan.env, ...caches }, sandboxed: true, release: () => plan.release() };
  };
}
