import type { SessionHandle } from '#contract/capability';
import { readSlot } from '#contract/state';
import type { Session } from '#infra/sessions/session';

/**
 * The part of a SessionHandle that every session has the same way, a sub-agent's included: its own log, state
 * and usage. `onStateChanged` hears a state slot take a different value (capabilities react through Capability.onStateChanged).
 */
export function sessionBasics(
  session: Session,
  onStateChanged?: (key: string, previous: unknown) => void,
): Pick<SessionHandle, 'id' | 'dir' | 'running' | 'emit' | 'state' | 'usage' | 'contextTurns' | 'flush'> {
  return {
    id: session.id,
    dir: session.dir,
    get running() {
      return session.running;
    },
    emit: (event) => void session.emit(event),
    state: (slot) => ({
      get: () => readSlot(slot, session.state.get(slot.key)),
      set: (value) => {
        const previous = session.state.get(slot.key);
        session.setState(slot.key, value);
        if (previous !== value) onStateChanged?.(slot.key, previous);
      },
    }),
    usage: () => ({ ...session.usageTotal }),
    contextTurns: () => session.contextTurns(),
    flush: () => session.flush(),
  };
}
