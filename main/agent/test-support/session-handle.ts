import type { SessionHandle } from '../contract/feature';

/** A session handle that records nothing and starts no turns: for exercising tools and features alone. */
export function inertSessionHandle(id: string, dir: string): SessionHandle {
  return {
    id,
    dir,
    running: false,
    emit: () => {},
    state: (slot) => ({ get: () => slot.fallback, set: () => {} }),
    startTurn: async () => null,
    inject: () => {},
    usage: () => ({ inputTokens: 0, outputTokens: 0 }),
  };
}
