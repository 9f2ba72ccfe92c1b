// Work done once in the window's idle time so that code runs warm when the user needs it (the
// Markdown path before the first answer streams, the transcript's rows before a long session opens).

export interface IdleScheduler {
  request(run: (deadline: { timeRemaining(): number }) => void): number;
  cancel(handle: number): void;
}

export const browserIdle: IdleScheduler = {
  // No timeout: a window that is never idle is busy streaming or rendering, which warms the same code for real.
  request: (run) => requestIdleCallback(run),
  cancel: (handle) => cancelIdleCallback(handle),
};

/** Leave this much of an idle period unused: a step must not make the next frame late. */
const MARGIN_MS = 6;

/**
 * Run `steps` in idle periods, a step at a time while the period has time left; while `busy()` says the
 * window is doing what the user asked (a session opening), no step runs and the next idle period is awaited.
 * Returns a function that stops it.
 */
export function runWhenIdle(steps: Iterator<void>, idle: IdleScheduler = browserIdle, busy: () => boolean = () => false): () => void {
  let handle: number | null = null;
  const run = (deadline: { timeRemaining(): number }) => {
    handle = null;
    if (!busy()) {
      do {
        if (steps.next().done) return;
      } while (deadline.timeRemaining() > MARGIN_MS && !busy());
    }
    handle = idle.request(run);
  };
  handle = idle.request(run);
  return () => {
    if (handle !== null) idle.cancel(handle);
    handle = null;
  };
}
