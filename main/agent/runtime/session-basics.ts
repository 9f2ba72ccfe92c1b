import type { SessionHandle } from '../contract/feature';
import { readSlot } from '../contract/state';
import type { Session } from '../infra/sessions/session';

/** The part of a SessionHandle that every session has the same way, a sub-agent's included: its own log, state and usage. */
export function sessionBasics(session: Session): Pick<SessionHandle, 'id' | 'dir' | 'running' | 'emit' | 'state' | 'usage' | 'contextTurns' | 'flush'> {
  return {
    id: session.id,
    dir: session.dir,
    get running() {
      return session.running;
    },
    emit: (event) => void session.emit(event),
    state: (slot) => ({ get: () => readSlot(slot, session.state.get(slot.key)), set: (value) => session.setState(slot.key, value) }),
    usage: () => ({ ...session.usageTotal }),
    contextTurns: () => session.contextTurns(),
    flush: () => session.flush(),
  };
}
