import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { defaultCapabilities } from '../../agent/capabilities';
import { type RemoteFolder } from '#infra/environment/ssh/open-remote';
import { parseRemoteSpec } from '#infra/environment/ssh/remote-spec';
import { createNodeCore } from '../compose';
import { openRemoteForCli, remoteCapabilities } from '../remote-folder';
import { webHost } from '../hosts';
import { onStopSignals } from '../stop-signals';
import { type WebHost, startWebHost } from './server';
import { remoteBrowser } from '../remote-browse';
import { deftHome } from '../../agent/infra/platform/home';
import type { DeftCore } from '../../agent/runtime/core';
import { Worktrees } from '#infra/worktrees/worktrees';
import { WorktreeCores } from '../worktree-cores';
import { remoteWorktreeCores } from '../remote-worktree-cores';
import { WaitingBoard } from '../waiting-board';

/** DEFT_UNLOAD_AFTER_MS: how long an idle session no tab shows stays loaded (tests shorten it; default 60 s). */
function unloadAfter(value: string | undefined): { unloadAfterMs?: number } {
  const ms = Number(value);
  return value && Number.isFinite(ms) && ms >= 0 ? { unloadAfterMs: ms } : {};
}

/** `npm run web -- --workspace DIR [--port N]`: the Deft UI in a browser, on loopback. */
async function main(argv: string[]): Promise<number> {
  let values: { workspace?: string; remote?: string; port?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { workspace: { type: 'string' }, remote: { type: 'string' }, port: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    }));
  } catch (error) {
    console.error(`deft web: ${(error as Error).message}\nUsage: npm run web -- (--workspace DIR | --remote [user@]host[:port]:/path) [--port N]`);
    return 2;
  }
  if (values.help) {
    console.log(
      'Usage: npm run web -- (--workspace DIR | --remote [user@]host[:port]:/path) [--port N]\nServes the Deft UI on http://127.0.0.1 with a random access token.',
    );
    return 0;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`deft web: --port must be a number from 0 to 65535, not "${values.port}".`);
    return 2;
  }
  let remote: RemoteFolder | null = null;
  if (values.remote !== undefined) {
    if (values.workspace !== undefined) {
      console.error('deft web: use either --workspace or --remote, not both.');
      return 2;
    }
    try {
      remote = await openRemoteForCli(parseRemoteSpec(values.remote), process.env);
    } catch (error) {
      console.error(`deft web: cannot open ${values.remote}: ${(error as Error).message}`);
      return 5;
    }
    for (const note of remote.notes) console.error(`deft web: warning: ${note}`);
  }
  // *Open remote folder…* in the page: the chosen folder replaces the workspace this host serves (sessions stay here).
  let host: WebHost | undefined;
  const browser = remoteBrowser({
    home: deftHome(process.env),
    env: process.env,
    open: async (folder) => {
      if (!host) throw new Error('The web host is not serving yet.');
      console.error(`deft web: now serving ${folder.id}.`);
      const next = coreFor(folder);
      const [previous, previousRemote] = [core, remote];
      [core, remote] = [next, folder];
      host.replaceCore(next);
      // The local folder's worktrees are not this one's: their cores go too (their turns end as at a stop).
      waiting.forgetAll();
      waiting.watch(null, next);
      void worktreeCores.closeAll();
      // After the reply that asked for it, and the pages' move to the new core.
      setTimeout(() => void previous.close().then(() => previousRemote?.environment.close()), 1_000).unref();
      return 'here';
    },
  });
  const home = deftHome(process.env);
  const coreFor = (folder: RemoteFolder | null, workspace = values.workspace ?? process.cwd()) =>
    createNodeCore({
      workspace: folder ? folder.workspace : workspace,
      ...(folder ? { environment: folder.environment, workspaceId: folder.id, capabilities: remoteCapabilities(defaultCapabilities) } : {}),
      host: webHost,
      remoteBrowser: browser,
      // A worktree of this repository opens in this page, beside the main checkout: the page switches to it by name
      // (a remote folder's too: its core has a connection of its own to that machine, remote-worktree-cores.ts).
      openFolder: async () => 'here' as const,
      ...unloadAfter(process.env.DEFT_UNLOAD_AFTER_MS),
    });
  // What waits for the user in each core: each page is told what waits in the cores it does not show.
  const waiting = new WaitingBoard();
  // One core per worktree a page switched to, kept running beside the main checkout's (its folder from Deft's records).
  // A remote folder's worktree: its folder from Deft's records there, its core on a connection of its own.
  const remoteTrees = remoteWorktreeCores({
    home,
    remote: () => remote!,
    open: (spec) => openRemoteForCli(spec, process.env),
    coreFor: (folder) => coreFor(folder),
  });
  const worktreeCores = new WorktreeCores({
    resolve: async (name) => {
      if (remote) return remoteTrees.resolve(name);
      const record = await (await Worktrees.of(home, values.workspace ?? process.cwd())).folderOf(name);
      return { path: record.path, branch: record.branch };
    },
    create: (path) => (remote ? remoteTrees.create(path) : coreFor(null, path)),
    release: (made) => remoteTrees.release!(made),
    made: (made, worktree) => waiting.watch(worktree, made),
  });
  let core: DeftCore;
  try {
    core = coreFor(remote);
  } catch (error) {
    console.error(`deft web: ${(error as Error).message}`);
    await remote?.environment.close();
    return 2;
  }
  waiting.watch(null, core);
  const rendererDir = fileURLToPath(new URL('../renderer', import.meta.url));
  try {
    host = await startWebHost({
      core,
      rendererDir,
      port,
      worktreeCore: (name) => worktreeCores.open(name),
      waiting,
      ...(process.env.DEFT_WEB_TOKEN ? { token: process.env.DEFT_WEB_TOKEN } : {}),
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    console.error(
      code === 'EADDRINUSE'
        ? `deft web: port ${port} is already in use. Pick another with --port, or leave it out to get a free one.`
        : `deft web: ${(error as Error).message}`,
    );
    await core.close();
    await remote?.environment.close();
    return 1;
  }
  const workspace = (await core.handlers.getWorkspace({})).path;
  console.log(`Deft web host for ${workspace}`);
  console.log(`Open ${host.url}`);
  const stop = async () => {
    await browser.closeAll();
    await worktreeCores.closeAll();
    await core.close();
    await remote?.environment.close();
    await host?.close();
    process.exit(0);
  };
  const removeStopSignals = onStopSignals(() => {
    removeStopSignals();
    void stop();
  });
  return -1;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    console.error(`deft web: ${(error as Error)?.stack ?? String(error)}`);
    process.exit(1);
  },
);
