import type { RemoteConnectInput, RemoteConnectResult, RemoteListing, RecentRemoteFolder, RemoteHostEntry } from '#protocol';
import { deft } from '../bridge';
import { type Outcome, outcome } from './outcome';

// *Open remote folder…*: the host connects, lists and opens; the window holds a connection id and shows what it says.

export function listRemoteHosts(): Promise<Outcome<{ hosts: RemoteHostEntry[]; recent: RecentRemoteFolder[] }>> {
  return outcome(() => deft.listRemoteHosts({}));
}

export function connectRemoteHost(input: RemoteConnectInput): Promise<Outcome<RemoteConnectResult>> {
  return outcome(() => deft.connectRemoteHost(input));
}

export function listRemoteFolder(connection: string, path: string): Promise<Outcome<RemoteListing>> {
  return outcome(() => deft.listRemoteFolder({ connection, path }));
}

/** Open the folder as the workspace: in this page (it reloads onto the new workspace) or in a new window. */
export async function openRemoteWorkspace(connection: string, path: string): Promise<Outcome<'here' | 'window'>> {
  const done = await outcome(async () => (await deft.openRemoteWorkspace({ connection, path })).opened);
  if (done.ok && done.value === 'here') window.location.reload();
  return done;
}

/** A fresh name for one connect attempt (to stop it with `cancelRemoteConnect`). */
export function newAttemptId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return `ra-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** Stop a connect still under way; it then fails, which the dialog expects. */
export function cancelRemoteConnect(attempt: string): void {
  void deft.cancelRemoteConnect({ attempt }).catch(() => {});
}

export function closeRemoteHost(connection: string): void {
  void deft.closeRemoteHost({ connection }).catch(() => {});
}
