import { posix } from 'node:path';
import type { Environment, WorkspacePlace } from '#contract/environment';
import { remoteFolderIdAt } from '../environment/ssh/remote-spec';
import { type WorktreeMachine, environmentMachine } from './machine';
import { nameProblem } from './names';
import { type WorktreeRecord, worktreeRecordSchema } from './records';
import { Worktrees } from './worktrees';

/** The real path of the home there (`~/.deft` is under it), or the home as given when it cannot be resolved. */
async function realHomeThere(environment: Environment): Promise<string> {
  return environment.realpath(environment.home).catch(() => environment.home);
}

/**
 * The machine a remote workspace's repository is on (git run there, Deft's folder `~/.deft` there), its sessions kept
 * here under each folder's `ssh://` key. Null for a workspace on this machine.
 */
export async function machineOf(place: WorkspacePlace): Promise<WorktreeMachine | null> {
  const { environment } = place;
  if (environment.kind === 'local') return null;
  return environmentMachine(environment, (path) => remoteFolderIdAt(place.id, path), posix.join(await realHomeThere(environment), '.deft'));
}

/**
 * The worktrees of the repository a workspace is in, wherever the workspace is: on this machine (under Deft's home
 * here), or on a remote folder's machine (`place.environment`, SSH) — made there under `~/.deft/worktrees/` (the
 * home's real path there), git run there, their sessions kept here under each folder's `ssh://` key.
 */
export async function worktreesOf(home: string, place: WorkspacePlace): Promise<Worktrees> {
  const machine = await machineOf(place);
  return machine ? Worktrees.of(home, place.path, machine) : Worktrees.of(home, place.path);
}

/**
 * The record of the Deft worktree a remote workspace is (`place.path` its top folder, under `~/.deft/worktrees/<repo>-<hash>/`
 * there), or null when it is none. A path not shaped like one costs nothing; one that is, a real path and one read
 * there. The record must name that very folder (an edited record naming another is not believed).
 */
export async function remoteWorktreeAt(place: WorkspacePlace): Promise<WorktreeRecord | null> {
  const { environment, path } = place;
  if (environment.kind === 'local') return null;
  const repoDir = posix.dirname(path);
  const name = posix.basename(path);
  if (nameProblem(name) || posix.basename(posix.dirname(repoDir)) !== 'worktrees' || posix.basename(posix.dirname(posix.dirname(repoDir))) !== '.deft')
    return null;
  const root = posix.dirname(repoDir);
  if (root !== posix.join(environment.home, '.deft', 'worktrees') && root !== posix.join(await realHomeThere(environment), '.deft', 'worktrees')) return null;
  try {
    const text = await environment.readText(`${path}.json`);
    const parsed = worktreeRecordSchema().safeParse(JSON.parse(text));
    return parsed.success && parsed.data.path === path && parsed.data.name === name ? parsed.data : null;
  } catch {
    return null;
  }
}
