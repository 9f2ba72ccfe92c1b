import { type RemoteFolder } from '#infra/environment/ssh/open-remote';
import { parseRemoteSpec, remoteFolderIdAt } from '#infra/environment/ssh/remote-spec';
import { worktreesOf } from '#infra/worktrees/there';
import type { WorktreeCoresOptions, WorktreeFolder } from './worktree-cores';

export interface RemoteWorktreeCoresOptions<C extends { close(): Promise<void> }> {
  /** Deft's home here (the sessions of every worktree are kept here, under each folder's `ssh://` key). */
  home: string;
  /** The remote folder the host serves (its main checkout or any folder of the repository). */
  remote: () => RemoteFolder;
  /** A connection to another folder on the same machine, as the host opened its own (the same user, host and port). */
  open(spec: ReturnType<typeof parseRemoteSpec>): Promise<RemoteFolder>;
  /** The core on a remote folder (its Environment, its `ssh://` key), as the host makes its main one. */
  coreFor(folder: RemoteFolder): C;
}

/**
 * What WorktreeCores needs to make a core per worktree of a REMOTE folder (the web host on `--remote`): the folder of
 * worktree NAME from Deft's records on that machine (`folderOf`: the folder Deft made under `~/.deft/worktrees/`
 * there, still there, not a link), and a core on it over a connection of its own to the same machine (an
 * Environment's folder is the workspace of its one core: the main folder's cannot be shared) — kept under the
 * worktree's own `ssh://` key, exactly as `deft run --remote HOST:/path/of/the/worktree` keeps it. Each connection is
 * ended with its core.
 */
export function remoteWorktreeCores<C extends { close(): Promise<void> }>(
  options: RemoteWorktreeCoresOptions<C>,
): Pick<WorktreeCoresOptions<C>, 'resolve' | 'create' | 'release'> {
  const connections = new Map<C, RemoteFolder>();
  return {
    resolve: async (name: string): Promise<WorktreeFolder> => {
      const remote = options.remote();
      const trees = await worktreesOf(options.home, { path: remote.workspace, environment: remote.environment, id: remote.id });
      const record = await trees.folderOf(name);
      return { path: record.path, branch: record.branch };
    },
    create: async (path: string) => {
      const folder = await options.open(parseRemoteSpec(remoteFolderIdAt(options.remote().id, path)));
      // The connection resolved the folder to its real path there: it must be the worktree's own (folderOf checked it is no link).
      if (folder.workspace !== path) {
        await folder.environment.close();
        throw new Error(`the worktree's folder ${path} is ${folder.workspace} on that machine: it is not opened.`);
      }
      let core: C;
      try {
        core = options.coreFor(folder);
      } catch (error) {
        await folder.environment.close();
        throw error;
      }
      connections.set(core, folder);
      return core;
    },
    release: async (core: C) => {
      const folder = connections.get(core);
      connections.delete(core);
      await folder?.environment.close();
    },
  };
}
