import type { SessionHandle } from '#contract/capability';
import type { ModelMessage } from '#contract/model';
import type { Session } from '#infra/sessions/session';
import type { RetryWait } from '#infra/providers/retry';
import type { TaskBoard } from '#infra/tasks/task-board';
import type { SubagentHost } from '../subagents/host';
import type { PromptQueue } from '../turn/prompt-queue';

/** A session the core has open: its log, what was wrong with it on load, and the handle capabilities get. */
export interface OpenSession {
  session: Session;
  problems: string[];
  handle: SessionHandle;
  /** Its background tasks, of every kind. */
  tasks: TaskBoard;
  /** Messages for the model waiting for the next step boundary. */
  injections: string[];
  /** What the user typed while a turn ran: the next turn's prompts, and steers for the running turn. */
  queue: PromptQueue;
  /** The wait before a model call is retried, which "Retry now" ends. */
  retryWait: RetryWait;
  /** What capabilities asked to finish before the turn's next tool call runs (Capability.onTurnStart, onStepEnd). */
  gates: Promise<unknown>[];
  /** The SessionStart hooks' context, waiting for the session's first turn (which waits for them). */
  starting: Promise<ModelMessage | null> | null;
  /** Whether `starting` has settled (its hooks no longer run). */
  startSettled: boolean;
  subagents: SubagentHost;
  /** When a command or an event last used it (performance.now(), not the core's clock, which tests may freeze). */
  lastUsed: number;
  /** Let go of: a stale reference that starts a turn reaches the session loaded again instead. */
  unloaded: boolean;
  stopForwarding: () => void;
}

/** What a session let go of keeps for when it is loaded again: what its SessionStart hooks and its tasks said that no turn has read yet. */
export interface LetGo {
  start: ModelMessage | null;
  injections: string[];
}
