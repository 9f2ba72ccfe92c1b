import { describe, expect, it } from 'vitest';
import type { Session } from '#infra/sessions/session';
import { Runs } from './runs';

/** The little of a session a run touches. */
function fakeSession(id: string): Session {
  return {
    id,
    dir: '/nonexistent',
    running: false,
    summary: () => ({}),
    touch: () => {},
    emit: () => {},
    flush: async () => {},
  } as unknown as Session;
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('Runs', () => {
  it('counts a run as not done while what runs after it (the turn-end checkpoint) still runs', async () => {
    const runs = new Runs();
    const session = fakeSession('s1');
    const afterGate = deferred<void>();
    const workDone = deferred<void>();
    let afterFinished = false;
    runs.start(
      session,
      'r1',
      async () => {
        workDone.resolve();
        return { stopReason: 'end_turn' };
      },
      async () => {
        await afterGate.promise;
        afterFinished = true;
      },
    );
    await workDone.promise;
    while (session.running) await new Promise((r) => setTimeout(r, 1));
    // The session shows as idle, but its run's end is still being handled: waiting on it waits for that.
    expect(runs.busy('s1')).toBe(false);
    expect(runs.quiet('s1')).toBe(false);
    const done = runs.done('s1');
    expect(done).toBeDefined();
    expect(runs.pending('s1')).toHaveLength(1);
    afterGate.resolve();
    await done;
    expect(afterFinished).toBe(true);
    expect(runs.done('s1')).toBeUndefined();
    expect(runs.quiet('s1')).toBe(true);
  });
});
