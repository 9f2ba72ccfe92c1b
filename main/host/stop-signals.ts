/**
 * Signals that end a host process. Commands run in sessions of their own, so the terminal's SIGHUP or
 * a `kill`/`timeout` SIGTERM never reaches them: the host must stop them itself before it exits, and a
 * process killed by an unhandled signal gets no 'exit' event to do it in.
 */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Call `handler` on any stop signal (instead of dying at once); returns a function that removes it. */
export function onStopSignals(handler: (signal: NodeJS.Signals) => void, target: NodeJS.Process = process): () => void {
  for (const signal of STOP_SIGNALS) target.on(signal, handler);
  return () => {
    for (const signal of STOP_SIGNALS) target.off(signal, handler);
  };
}
