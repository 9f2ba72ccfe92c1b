import { posix } from 'node:path';
import type { WorkspacePlace } from '#contract/environment';
import { remoteFolderIdAt } from '../environment/ssh/remote-spec';
import { environmentMachine } from './machine';
import { Worktrees } from './worktrees';

/**
 * The worktrees of the repository a workspace is in, wherever the workspace is: on this machine (under Deft's home
 * here), or on a remote folder's machine (`place.environment`, SSH) — made there under `~/.deft/worktrees/` (the
 * home's real path there), git run there, their sessions kept here under each folder's `ssh://` key.
 */
export async function worktreesOf(home: string, place: WorkspacePlace): Promise<Worktrees> {
  const { environment } = place;
  if (environment.kind === 'local') return Worktrees.of(home, place.path);
  const realHome = await environment.realpath(environment.home).catch(() => environment.home);
  const machine = environmentMachine(environment, (path) => remoteFolderIdAt(place.id, path), posix.join(realHome, '.deft'));
  return Worktrees.of(home, place.path, machine);
}
