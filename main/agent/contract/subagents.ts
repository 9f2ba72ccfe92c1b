import type { ErrorInfo, SessionEvent, Usage } from '#protocol';
import type { SessionSandbox } from './sandbox';

/** Who a sub-agent is, as approvals and cards name it. */
export interface SubagentLabel {
  agentId: string;
  type: string;
  description: string;
}

/** What a sub-agent of a type may use and is told: the capability that knows the types decides. */
export interface SubagentProfile {
  type: string;
  /** Its role: a section of its system prompt (after Deft's identity and the workspace facts). */
  systemPrompt: string;
  /** Whether it gets this tool (the session's tools are filtered by it). */
  allowsTool: (name: string) => boolean;
  /** A model other than the session's, when its definition names one. */
  model?: string;
}

export interface SubagentRunOptions {
  profile: SubagentProfile;
  signal: AbortSignal;
  /** A rate limit (429) ends the turn at once with `provider_rate_limit` instead of being retried (a swarm reschedules it). */
  failFastOnRateLimit?: boolean;
  /** Each event of its own session, live (its log keeps them too). */
  onEvent?: (event: SessionEvent) => void;
  /**
   * The folder its tools work in, when not the session's workspace (an isolated sub-agent's git worktree): its
   * path guard, file tools, Bash's default cwd and its calls' approvals take it as the workspace.
   */
  workspace?: string;
  /** The OS sandbox its commands run in when not its parent's (an isolated sub-agent's: its worktree's). */
  sandbox?: SessionSandbox;
}

/** How one turn of a sub-agent ended. */
export interface SubagentTurn {
  status: 'completed' | 'failed' | 'cancelled';
  /** Its final answer (the text of its last step). */
  text: string;
  error?: ErrorInfo;
  /** Model steps taken in this turn. */
  steps: number;
}

/** A sub-agent: a session of its own under its parent's folder, run turn by turn by its parent's tools. */
export interface Subagent {
  readonly id: string;
  readonly type: string;
  readonly description: string;
  /** Its folder (its log, tool results, card). */
  readonly dir: string;
  /** A turn of it is running. */
  readonly busy: boolean;
  /**
   * Run one turn: its context so far, then `prompt` as a user message (null: carry on from its context as
   * it stands, e.g. after a rate limit cut its last turn short). Never rejects.
   */
  run(prompt: string | null, options: SubagentRunOptions): Promise<SubagentTurn>;
  /** Tokens it used so far (every turn). */
  usage(): Usage;
  /** Every event of its session so far (what its card replays; earlier turns are read back from its log). */
  events(): Promise<readonly SessionEvent[]>;
}

/** The sub-agents of one session: created, found again (also after a restart), run under the session's rules. */
export interface SessionSubagents {
  /** A new sub-agent, with an empty context. Throws when this session may not delegate (it is itself a sub-agent). */
  create(meta: { type: string; description: string }): Promise<Subagent>;
  /** A sub-agent of this session by id (loaded from its log when needed); undefined when there is none. */
  open(agentId: string): Promise<Subagent | undefined>;
  /** Ids of its sub-agents on disk, oldest first. */
  list(): Promise<string[]>;
}

/** Agent ids: `a` and 8 base-36 characters. */
export const AGENT_ID_PATTERN = /^a[0-9a-z]{8}$/;
