import { useSessions } from '../../stores/sessions';
import { type IdleScheduler, browserIdle, runWhenIdle } from './idle-warmup';
import { warmupSteps } from './markdown-warmup';
import { transcriptWarmupSteps } from './transcript-warmup';

/** One warm-up after another. */
function* chain(...parts: Iterable<void>[]): Generator<void> {
  for (const part of parts) yield* part;
}

/**
 * The window's warm-ups, once, in idle time after start-up: first the transcript's rows (what opening a
 * long session renders), then the Markdown path (what a streamed answer renders). None runs while a
 * session is opening: its rows and the host's reply come first, the warm-up resumes once they are in.
 */
export function warmWindowWhenIdle(
  idle: IdleScheduler = browserIdle,
  steps: Iterator<void> = chain(transcriptWarmupSteps(), warmupSteps()),
  busy: () => boolean = () => useSessions.getState().loading,
): () => void {
  return runWhenIdle(steps, idle, busy);
}
