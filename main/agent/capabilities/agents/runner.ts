import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentInfo, AgentStatus, ErrorInfo, SessionEvent } from '#protocol';
import type { SessionHandle } from '#contract/capability';
import type { Subagent, SubagentProfile } from '#contract/subagents';
import type { IsolatedTree } from './isolation';
import type { AgentType } from './types/builtin';
import { toolMatcher } from './types/tool-names';

/** How many times in a row SubagentStop hooks may send a sub-agent back to work (as Stop hooks a turn). */
const MAX_SUBAGENT_STOP_CONTINUATIONS = 3;
/** A final answer shorter than this is sent back once with a request to expand it. */
export const MIN_SUMMARY_CHARS = 200;
const DEFAULT_TIMEOUT_MS = 2 * 60 * 60 * 1000;
const CARD_FILE = 'card.json';
const CARD_RESULT_CHARS = 20_000;

export const EXPAND_PROMPT =
  'Your final answer is too short to be useful to the agent that delegated this task to you. Write it again as a complete summary: what you did, what you found (with file paths), the results of any checks you ran, and anything left open. Do not use tools unless you must.';

/** The sub-agent time limit: `DEFT_SUBAGENT_TIMEOUT_MS` (0 = none), else 2 hours. */
export function subagentTimeoutMs(env: NodeJS.ProcessEnv = process.env): number | null {
  const raw = env.DEFT_SUBAGENT_TIMEOUT_MS;
  if (raw === undefined || raw.trim() === '') return DEFAULT_TIMEOUT_MS;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) return DEFAULT_TIMEOUT_MS;
  return value === 0 ? null : value;
}

export function profileOf(type: AgentType): SubagentProfile {
  return { type: type.name, systemPrompt: type.prompt, allowsTool: toolMatcher(type.tools), ...(type.model ? { model: type.model } : {}) };
}

/** How a sub-agent's work ended, for the tool results. */
export interface AgentOutcome {
  status: Exclude<AgentStatus, 'queued' | 'running'>;
  text: string;
  error?: ErrorInfo;
  /** The last turn failed on a provider rate limit (a swarm reschedules it). */
  rateLimited?: boolean;
}

export interface AgentRun {
  session: SessionHandle;
  agent: Subagent;
  type: AgentType;
  /** Its first prompt, or the next one when resumed; null: carry on from its context (after a rate limit). */
  prompt: string | null;
  signal: AbortSignal;
  placement?: { callId?: string; taskId?: string; swarmId?: string; item?: string };
  failFastOnRateLimit?: boolean;
  onEvent?: (event: SessionEvent) => void;
  /** The worktree it works in (isolation: "worktree"), instead of the session's workspace; its commands' OS sandbox is the worktree's. */
  tree?: IsolatedTree;
  /** Skip the expansion request (e.g. a swarm item retried after a rate limit keeps it for its last turn). */
  expand?: boolean;
}

/**
 * Run a sub-agent to its final answer: one turn, and — when that answer is shorter than 200 characters — one
 * more asking it to expand it. Its card (agent.updated in the parent session, card.json beside its log)
 * follows it; it stops at the time limit. Never rejects.
 */
export async function runAgent(run: AgentRun): Promise<AgentOutcome> {
  const timeoutMs = subagentTimeoutMs();
  // A timer of our own, cleared at the end: nothing of a finished sub-agent stays reachable for two hours.
  const limit = new AbortController();
  const timer = timeoutMs === null ? null : setTimeout(() => limit.abort(new Error('The sub-agent reached its time limit')), timeoutMs);
  timer?.unref?.();
  const signal = AbortSignal.any([run.signal, limit.signal]);
  try {
    return await runWithin(run, signal, limit.signal, timeoutMs);
  } finally {
    if (timer) clearTimeout(timer);
  }
}

async function runWithin(run: AgentRun, signal: AbortSignal, limit: AbortSignal, timeoutMs: number | null): Promise<AgentOutcome> {
  const { session, agent } = run;
  const startedAt = Date.now();
  let steps = 0;
  const card = (status: AgentStatus, extra: Partial<AgentInfo> = {}): AgentInfo => ({
    agentId: agent.id,
    type: agent.type,
    description: agent.description,
    status,
    ...Object.fromEntries(Object.entries(run.placement ?? {}).filter(([, v]) => v !== undefined)),
    startedAt,
    usage: agent.usage(),
    steps,
    ...extra,
  });
  const show = (info: AgentInfo) => {
    session.emit({ type: 'agent.updated', agent: info });
    return saveCard(agent, info);
  };
  await show(card('running'));
  const options = {
    profile: profileOf(run.type),
    signal,
    ...(run.failFastOnRateLimit ? { failFastOnRateLimit: true } : {}),
    ...(run.onEvent ? { onEvent: run.onEvent } : {}),
    ...(run.tree ? { workspace: run.tree.path, sandbox: session.sandbox.inWorktree(run.tree) } : {}),
  };
  let turn = await agent.run(run.prompt, options);
  steps += turn.steps;
  if (turn.status === 'completed' && run.expand !== false && turn.text.length < MIN_SUMMARY_CHARS && !signal.aborted) {
    const expanded = await agent.run(EXPAND_PROMPT, options);
    steps += expanded.steps;
    turn = expanded.status === 'completed' && expanded.text.trim() ? expanded : { ...turn, steps: 0 };
  }
  // The user's SubagentStop hooks may send it back to work with an instruction, a few times at most.
  for (let continued = 0; turn.status === 'completed' && !signal.aborted && continued < MAX_SUBAGENT_STOP_CONTINUATIONS; continued++) {
    if (!(await session.hooks.has('SubagentStop'))) break;
    const verdict = await session.hooks.fire(
      { hook_event_name: 'SubagentStop', stop_hook_active: continued > 0, agent_id: agent.id, agent_type: agent.type, last_message: turn.text },
      { signal },
    );
    if (!verdict.block) break;
    const next = await agent.run(verdict.block.reason, options);
    steps += next.steps;
    turn = next.status === 'completed' && !next.text.trim() ? { ...next, text: turn.text } : next;
  }
  const timedOut = limit.aborted && !run.signal.aborted;
  const outcome: AgentOutcome = timedOut
    ? {
        status: 'timed_out',
        text: turn.text,
        error: { code: 'provider_timeout', message: `The sub-agent reached its time limit (${Math.round((timeoutMs ?? 0) / 1000)} s).` },
      }
    : turn.status === 'completed'
      ? { status: 'completed', text: turn.text }
      : turn.status === 'cancelled'
        ? { status: 'cancelled', text: turn.text }
        : {
            status: 'failed',
            text: turn.text,
            ...(turn.error ? { error: turn.error } : {}),
            ...(turn.error?.code === 'provider_rate_limit' ? { rateLimited: true } : {}),
          };
  await show(
    card(outcome.status, {
      endedAt: Date.now(),
      ...(outcome.text ? { result: outcome.text.slice(0, CARD_RESULT_CHARS) } : {}),
      ...(outcome.error ? { error: outcome.error } : {}),
    }),
  );
  return outcome;
}

async function saveCard(agent: Subagent, info: AgentInfo): Promise<void> {
  await writeFile(join(agent.dir, CARD_FILE), JSON.stringify(info) + '\n', { mode: 0o600 }).catch(() => {});
}

/** A sub-agent's card as last saved (after a restart, the card of its last run). */
export async function readCard(agent: Subagent): Promise<AgentInfo | null> {
  try {
    return JSON.parse(await readFile(join(agent.dir, CARD_FILE), 'utf8')) as AgentInfo;
  } catch {
    return null;
  }
}
