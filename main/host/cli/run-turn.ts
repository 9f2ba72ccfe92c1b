import type { SessionEvent } from '#protocol';
import { type PricedUsage, sessionCost } from '#protocol/helpers/prices';
import { parseSlashCommand, slashCommands } from '#protocol/helpers/slash';
import type { createNodeCore } from '../compose';
import type { CliIo } from './io';

// One headless run of a prompt: its events out, the answer, the json result and the exit code.

export type Format = 'text' | 'stream-json' | 'json';
type Core = ReturnType<typeof createNodeCore>;

/** A call the permissions refused, as Claude Code's json result lists them. */
export interface PermissionDenial {
  tool_name: string;
  tool_use_id: string;
  tool_input: unknown;
  /** Why (Deft's own field). */
  message: string;
}

/** The result of `--output-format json`, in the shape Claude Code's headless result has. */
export interface RunResult {
  subtype: 'success' | 'error_max_turns' | 'error_during_execution' | 'error_prompt_blocked';
  result: string;
  error?: string;
  sessionId: string | undefined;
  durationMs: number;
  turns: number;
  usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };
  costUsd?: number;
  /** The calls the permissions refused. */
  denials?: readonly PermissionDenial[];
  /** The worktree the run worked in (`--worktree`). */
  worktree?: { name: string; branch: string; path: string };
}

/** One JSON object on one line: JSON.stringify escapes whatever the answer holds (quotes, newlines, control characters). */
export function writeResult(io: CliIo, r: RunResult): void {
  const object = {
    type: 'result',
    subtype: r.subtype,
    is_error: r.subtype !== 'success',
    result: r.result,
    ...(r.error !== undefined ? { error: r.error } : {}),
    session_id: r.sessionId ?? null,
    duration_ms: r.durationMs,
    num_turns: r.turns,
    usage: r.usage,
    permission_denials: r.denials ?? [],
    ...(r.costUsd !== undefined ? { total_cost_usd: r.costUsd } : {}),
    ...(r.worktree ? { worktree: r.worktree } : {}),
  };
  io.stdout(JSON.stringify(object) + '\n');
}

type GoalNow = Extract<SessionEvent, { type: 'goal.updated' }>['goal'];

/** A prompt as the window sends it: `/name args` runs the skill or command of that name (expanded the same way), anything else is a message. */
async function startPrompt(core: Core, sessionId: string, prompt: string): Promise<void> {
  if (prompt.trim().startsWith('/') && typeof core.handlers.listSkills === 'function') {
    const { skills } = await core.handlers.listSkills({});
    const command = parseSlashCommand(prompt, slashCommands(skills));
    if (command) {
      await core.handlers.runSkill({ sessionId, name: command.skill.name, ...(command.args ? { args: command.args } : {}) });
      return;
    }
  }
  await core.handlers.sendPrompt({ sessionId, text: prompt });
}

/**
 * Runs the prompt's turn, then stays while the agent has work that will wake it (a background task it started, a goal it is pursuing), following those turns too.
 * The text output is the last turn's final answer.
 */
export async function runPrompt(
  core: Core,
  run: { sessionId: string; startedAt: number; model: string | undefined; denials: readonly PermissionDenial[]; worktree?: RunResult['worktree'] },
  prompt: string,
  format: Format,
  io: CliIo,
  onFirstCommand: () => Promise<void>,
): Promise<number> {
  const { sessionId } = run;
  // What the json result reports: this run's model steps, its tokens by model (priced as the window prices them), a prompt a hook refused.
  const steps = new Set<string>();
  const byModel: Record<string, PricedUsage & { cacheWriteTokens: number }> = {};
  let promptBlocked = false;
  const prices = format === 'json' ? (await core.handlers.getPreferences({})).prices : null;
  const firstCommand: { started: Promise<void> | null } = { started: null };
  const stepText = new Map<number, string>();
  let lastStepWithText = 0;
  let ended: Extract<SessionEvent, { type: 'turn.ended' }> | null = null;
  let goal: GoalNow = null;
  const stopWaiting = new AbortController();
  const unsubscribe = core.onEvent((event) => {
    // A sub-agent's own events, tagged with its agent id, so a headless client can follow it too.
    if (event.type === 'agent.event' && event.sessionId === sessionId) {
      if (format === 'stream-json') io.stdout(JSON.stringify(event) + '\n');
      return;
    }
    if (!('seq' in event) || event.sessionId !== sessionId) return;
    if (event.type === 'tool.call.started' && event.display?.kind === 'command') firstCommand.started ??= onFirstCommand().catch(() => {});
    if (format === 'stream-json') io.stdout(JSON.stringify(event) + '\n');
    // Headless, what a hook refused or failed at is said on stderr (stream-json carries every hook event).
    else if (event.type === 'hook.ran' && event.result !== 'context' && event.result !== 'allowed' && event.result !== 'output') {
      io.stderr(`deft: ${event.event} hook "${event.command}" ${event.result}: ${event.message}\n`);
    }
    if (event.type === 'step.started') steps.add(`${event.turnId}:${event.step}`);
    else if (event.type === 'usage') {
      const sum = (byModel[event.model ?? ''] ??= { inputTokens: 0, outputTokens: 0, cachedTokens: 0, cacheWriteTokens: 0 });
      sum.inputTokens += event.step.inputTokens;
      sum.outputTokens += event.step.outputTokens;
      sum.cachedTokens = (sum.cachedTokens ?? 0) + (event.step.cachedTokens ?? 0);
      sum.cacheWriteTokens += event.step.cacheWriteTokens ?? 0;
    } else if (event.type === 'hook.ran' && event.event === 'UserPromptSubmit' && (event.result === 'blocked' || event.result === 'stopped')) {
      promptBlocked = true;
    }
    if (event.type === 'turn.started') {
      stepText.clear();
      lastStepWithText = 0;
    } else if (event.type === 'assistant.delta') {
      stepText.set(event.step, (stepText.get(event.step) ?? '') + event.text);
      lastStepWithText = event.step;
    } else if (event.type === 'step.retrying' || event.type === 'step.started') {
      stepText.delete(event.step);
    } else if (event.type === 'goal.updated') {
      goal = event.goal;
    } else if (event.type === 'turn.ended') {
      ended = event;
      // A failed or stopped turn ends the run; background work is stopped with the core.
      if (event.stopReason === 'cancelled' || event.stopReason === 'error' || event.stopReason === 'filtered') stopWaiting.abort();
    }
  });
  let interrupted = false;
  const removeInterrupt = io.onInterrupt?.(() => {
    interrupted = true;
    stopWaiting.abort();
    void core.handlers.cancelTurn({ sessionId });
  });
  try {
    await startPrompt(core, sessionId, prompt);
    await core.settled(sessionId, stopWaiting.signal);
    await core.turnDone(sessionId);
    await firstCommand.started;
  } catch (error) {
    await core.close();
    throw error;
  } finally {
    removeInterrupt?.();
    unsubscribe();
  }
  await core.close();
  const end = ended as Extract<SessionEvent, { type: 'turn.ended' }> | null;
  // A goal's last turn ends with UpdateGoal (no answer after it): its note is the final word.
  const settledGoal = goal as GoalNow;
  const goalNote =
    settledGoal && (settledGoal.status === 'complete' || settledGoal.status === 'blocked')
      ? `Goal ${settledGoal.status}${settledGoal.reason ? `: ${settledGoal.reason}` : '.'}`
      : '';
  const answer = stepText.get(lastStepWithText) || goalNote;
  if (format === 'text' && answer) io.stdout(answer.endsWith('\n') ? answer : answer + '\n');
  const outcome = runOutcome(end, interrupted, promptBlocked, io);
  if (format === 'json') {
    const models = Object.values(byModel);
    const total = (pick: (u: PricedUsage & { cacheWriteTokens: number }) => number) => models.reduce((n, u) => n + pick(u), 0);
    const cost = prices ? sessionCost(byModel, prices, run.model) : null;
    writeResult(io, {
      subtype: outcome.subtype,
      result: answer,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      sessionId,
      durationMs: Date.now() - run.startedAt,
      turns: steps.size,
      usage: {
        input_tokens: total((u) => u.inputTokens),
        output_tokens: total((u) => u.outputTokens),
        cache_read_input_tokens: total((u) => u.cachedTokens ?? 0),
        cache_creation_input_tokens: total((u) => u.cacheWriteTokens),
      },
      // Only when every model the run used is priced: a partial sum would read as the whole cost.
      ...(cost && cost.unpriced.length === 0 ? { costUsd: cost.usd } : {}),
      denials: run.denials,
      ...(run.worktree ? { worktree: run.worktree } : {}),
    });
  }
  return outcome.code;
}

/**
 * The exit code (and the json result's subtype) of a run that reached its end: 0 done, 1 error, 3 the prompt
 * refused by a hook, 4 out of budget (--max-steps / --max-turns), 130 interrupted. Says why on stderr.
 */
function runOutcome(
  end: Extract<SessionEvent, { type: 'turn.ended' }> | null,
  interrupted: boolean,
  promptBlocked: boolean,
  io: CliIo,
): { code: number; subtype: RunResult['subtype']; error?: string } {
  const failed = (code: number, error: string) => ({ code, subtype: 'error_during_execution' as const, error });
  if (interrupted && end?.stopReason !== 'cancelled') {
    io.stderr('deft: interrupted; the background work the agent started was stopped.\n');
    return failed(130, 'interrupted');
  }
  if (!end) return failed(1, 'the turn did not end');
  switch (end.stopReason) {
    case 'end_turn':
      if (promptBlocked) {
        const error = 'a UserPromptSubmit hook refused the prompt; it did not reach the model.';
        io.stderr(`deft: ${error}\n`);
        return { code: 3, subtype: 'error_prompt_blocked', error };
      }
      return { code: 0, subtype: 'success' };
    case 'max_steps': {
      const error = 'stopped at the --max-steps / --max-turns limit before the model finished.';
      io.stderr(`deft: ${error}\n`);
      return { code: 4, subtype: 'error_max_turns', error };
    }
    case 'max_tokens':
      io.stderr('deft: the model hit its output token limit; the answer may be cut short.\n');
      return { code: 0, subtype: 'success' };
    case 'filtered':
      io.stderr('deft: the provider filtered the answer.\n');
      return failed(1, 'the provider filtered the answer.');
    case 'cancelled':
      io.stderr('deft: interrupted.\n');
      return failed(interrupted ? 130 : 1, 'interrupted');
    case 'error': {
      const error = end.error?.message ?? 'the turn failed.';
      io.stderr(`deft: ${error}\n`);
      return failed(1, error);
    }
  }
}
