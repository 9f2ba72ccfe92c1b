import type { AppEvent, RemoteConnection } from '#protocol';
import type { Environment } from '../contract/environment';

/**
 * A remote workspace's connection as the window shows it: each change is emitted (`workspace.connection`), and the
 * latest is what getWorkspace reports. Undefined for a workspace on this machine.
 */
export function followConnection(environment: Environment, emit: (event: AppEvent) => void): () => RemoteConnection | undefined {
  if (environment.kind === 'local' || !environment.connectionState) return () => undefined;
  let detail: string | null = null;
  const now = (): RemoteConnection => ({ label: environment.label, state: environment.connectionState!(), ...(detail ? { detail } : {}) });
  environment.onConnectionState?.((_state, why) => {
    detail = why;
    emit({ type: 'workspace.connection', remote: now() });
  });
  return now;
}
