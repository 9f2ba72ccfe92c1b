import type { CapabilitySet } from '../capability-set';
import type { LetGo, OpenSession } from './open-session';

/**
 * Let go of an idle session: capabilities save what must outlive it and forget the rest, its tasks are closed, its log
 * is written, and it stops forwarding events. Resolves to what it keeps for when it is loaded again (what its
 * SessionStart hooks and its tasks said that no turn has read yet). Never rejects.
 */
export async function unloadSession(open: OpenSession, capabilities: CapabilitySet): Promise<LetGo> {
  open.unloaded = true;
  await capabilities.each((f) => f.onSessionUnloaded?.(open.handle));
  await open.tasks.close().catch(() => {});
  const start = open.starting ? await open.starting.catch(() => null) : null;
  const kept = { start, injections: open.injections.splice(0) };
  // The log gets a snapshot, so that its next first open reads it from its tail (tail-view.ts).
  await open.session.snapshot().catch(() => {});
  open.stopForwarding();
  return kept;
}
