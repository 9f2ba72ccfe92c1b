import { basename, join } from 'node:path';
import { DEFT_HOME_SECRETS, SECRET_PLACES } from '../policies/secret-places';
import { workspaceSessionsDir } from '../sessions/store';
import { type PlannerFs, kindIn, localFs } from './planner-fs';

/** A path the sandbox hides from a command, and whether it is a folder. */
export interface SecretMask {
  path: string;
  dir: boolean;
}

/**
 * What a sandboxed command may not read, from the one list of secrets (policies/secret-places.ts): each place
 * in the user's home that exists, and in Deft's home its secrets and MCP file, the checkpoint stores and
 * every other workspace's sessions. `realOf` gives the path the mount must name (links resolved).
 */
export function secretMasks(
  places: { userHome: string; deftHome: string; workspace: string },
  realOf: (path: string) => string,
  fs: PlannerFs = localFs,
): SecretMask[] {
  const masks: SecretMask[] = [];
  const kindOf = (path: string) => kindIn(fs, path);
  const names = (dir: string) => (fs.readdir(dir) ?? []).map((entry) => entry.name);
  const add = (path: string) => {
    // Most places do not exist: a missing one is told by one lstat (which follows the links above it) before the
    // walk that resolves links, which costs a failed realpath per missing level — every command starts here.
    if (!kindOf(path)) return;
    const real = realOf(path);
    const kind = kindOf(real);
    if (kind) masks.push({ path: real, dir: kind === 'dir' });
  };
  for (const place of SECRET_PLACES) add(join(places.userHome, ...place.path.split('/')));
  const home = places.deftHome;
  for (const name of names(home)) if (DEFT_HOME_SECRETS.files.test(name)) add(join(home, name));
  for (const dir of DEFT_HOME_SECRETS.dirs) add(join(home, dir));
  const sessions = join(home, DEFT_HOME_SECRETS.perWorkspace);
  const own = basename(workspaceSessionsDir(home, places.workspace));
  for (const name of names(sessions)) if (name !== own) add(join(sessions, name));
  return masks;
}
