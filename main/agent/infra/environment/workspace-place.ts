import type { Environment, WorkspacePlace } from '#contract/environment';
import { localEnvironment } from './local/local-environment';
import { isRemoteFolderId } from './ssh/remote-spec';

/**
 * The workspace's place (contract/environment.ts): the one function that says which key a workspace's trust and
 * sessions are kept under. A local folder is known by its path; a folder on another machine only by the key its
 * host gave it when it was opened (`ssh://user@host:port/path`, `RemoteFolder.id`) — without one it is refused
 * rather than falling back to the bare path, which could be a local folder's.
 */
export function workspacePlace(path: string, environment: Environment = localEnvironment(), remoteId?: string): WorkspacePlace {
  if (environment.kind === 'local') {
    if (remoteId !== undefined && remoteId !== path) throw new Error(`A local workspace is known by its path (${path}), not by "${remoteId}".`);
    // This machine's disk itself, not a wrapper over it (ACP's client file system would hand an editor's unsaved
    // buffer of .deft/settings.json to the permission rules): settings are read as they were saved.
    return { path, environment: localEnvironment(), id: path };
  }
  if (!remoteId || !isRemoteFolderId(remoteId))
    throw new Error(`The workspace ${path} on ${environment.label} has no ssh:// key: its trust and sessions would be mixed with a local folder's.`);
  return { path, environment, id: remoteId };
}
