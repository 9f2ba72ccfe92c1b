import { homedir, userInfo } from 'node:os';
import type { CapabilityFactory } from '#contract/capability';
import { type RemoteFolder, openRemoteFolder } from '#infra/environment/ssh/open-remote';
import type { RemoteSpec } from '#infra/environment/ssh/remote-spec';

/**
 * The capabilities that still read the workspace through this machine's file system (or start programs here in
 * it): on a remote folder they would see a local folder of the same path, or nothing, so they are left out. None is
 * now: the last, worktrees, runs its git on the remote machine (infra/worktrees/there.ts).
 */
const LOCAL_ONLY: readonly CapabilityFactory[] = [];

/** The capabilities a session on a remote folder gets: those that reach the workspace through its Environment. */
export function remoteCapabilities(list: readonly CapabilityFactory[]): CapabilityFactory[] {
  return list.filter((factory) => !LOCAL_ONLY.includes(factory));
}

/** This machine's user name (OpenSSH's default remote user, and %u in ~/.ssh/config). */
export function localUserName(env: Record<string, string | undefined>): string {
  const named = env.USER ?? env.LOGNAME ?? '';
  if (named) return named;
  try {
    return userInfo().username;
  } catch {
    return 'root';
  }
}

/**
 * Open a remote folder for `deft run` or the web host's --remote: an unknown host is refused (with the line to add),
 * never asked. `oneShot` (a `deft` command that exits when done): a login shell is started ahead of the next command
 * only once a second command has come (warm-shell.ts), so a run of one command pays for no shell it does not use.
 */
export async function openRemoteForCli(spec: RemoteSpec, env: Record<string, string | undefined>, options: { oneShot?: boolean } = {}): Promise<RemoteFolder> {
  const folder = await openRemoteFolder(spec, {
    userHome: env.HOME || homedir(),
    localUser: localUserName(env),
    ...(env.SSH_AUTH_SOCK ? { agentSocket: env.SSH_AUTH_SOCK } : {}),
  });
  if (options.oneShot) folder.environment.shellsAhead = 'repeated';
  return folder;
}
