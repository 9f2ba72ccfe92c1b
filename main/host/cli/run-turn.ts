import type { SessionEvent } from '#protocol';
import { sessionCost } from '#protocol/helpers/prices';
import { parseSlashCommand, slashCommands } from '#protocol/helpers/slash';
import type { createNodeCore } from '../compose';
import type { CliIo } from './io';
import { HeadlessRun } from './headless-run';
import { type AnswerSchema, MAX_SCHEMA_ATTEMPTS, schemaCorrection, schemaInstruction } from './json-schema';

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
  subtype: 'success' | 'error_max_turns' | 'error_during_execution' | 'error_prompt_blocked' | 'error_max_structured_output_retries';
  result: string;
  error?: string;
  sessionId: string | undefined;
  durationMs: number;
  turns: number;
  usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };
  costUsd?: number;
  /** The answer parsed, when it passed --json-schema. */
  structured?: { value: unknown };
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
    ...(r.structured ? { structured_output: r.structured.value } : {}),
    ...(r.costUsd !== undefined ? { total_cost_usd: r.costUsd } : {}),
    ...(r.worktree ? { worktree: r.worktree } : {}),
  };
  io.stdout(JSON.stringify(object) + '\n');
}

/** A prompt as the window sends it: `/name args` runs the skill or command of that name (expanded the same way), anything else is a message. */
export async function startPrompt(core: Core, sessionId: string, prompt: string): Promise<void> {
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
 * The text output is the last turn's final answer. With a schema (--json-schema), an answer that does not pass is
 * sent back with what is wrong, up to MAX_SCHEMA_ATTEMPTS answers in all.
 */
export async function runPrompt(
  core: Core,
  run: {
    sessionId: string;
    startedAt: number;
    model: string | undefined;
    denials: readonly PermissionDenial[];
    worktree?: RunResult['worktree'];
    schema?: AnswerSchema;
    /** `--mailbox`: the turn's prompt is what waits in the session's mailbox (infra/sessions/inbox.ts), taken exactly once. */
    fromMailbox?: boolean;
  },
  prompt: string,
  format: Format,
  io: CliIo,
  onFirstCommand: () => Promise<void>,
): Promise<number> {
  const { sessionId, schema } = run;
  const prices = format === 'json' ? (await core.handlers.getPreferences({})).prices : null;
  const headless = new HeadlessRun(core, sessionId, {
    ...(format === 'stream-json' ? { event: (event) => io.stdout(JSON.stringify(event) + '\n') } : {}),
    stderr: io.stderr,
    onFirstCommand,
  });
  const removeInterrupt = io.onInterrupt?.(() => headless.interrupt());
  let structured: { value: unknown } | null = null;
  let schemaErrors: string[] | null = null;
  try {
    await headless.turn(() => (run.fromMailbox ? core.checkInbox() : startPrompt(core, sessionId, schema ? prompt + schemaInstruction(schema) : prompt)));
    for (let attempt = 1; schema && !headless.interrupted && headless.end?.stopReason === 'end_turn' && !headless.promptBlocked; attempt++) {
      const checked = schema.check(headless.answer());
      if (checked.ok) {
        structured = { value: checked.value };
        schemaErrors = null;
        break;
      }
      schemaErrors = checked.errors;
      if (attempt >= MAX_SCHEMA_ATTEMPTS) break;
      io.stderr(`deft: the answer did not pass --json-schema (${checked.errors[0]}); asking again (${attempt + 1} of ${MAX_SCHEMA_ATTEMPTS}).\n`);
      await headless.turn(() => core.handlers.sendPrompt({ sessionId, text: schemaCorrection(checked.errors, schema) }));
    }
  } catch (error) {
    await core.close();
    throw error;
  } finally {
    removeInterrupt?.();
    headless.close();
  }
  await core.close();
  const answer = headless.answer();
  if (format === 'text' && answer) io.stdout(answer.endsWith('\n') ? answer : answer + '\n');
  // Nothing was taken: none waited for the session, or another Deft (a window on its folder) took it first.
  if (run.fromMailbox && !headless.end && !headless.interrupted)
    io.stderr(`deft: nothing waits in the mailbox of session ${sessionId} (none was posted, or the Deft that has its folder open took it).\n`);
  let outcome = runOutcome(headless.end, headless.interrupted, headless.promptBlocked, io);
  if (schemaErrors && outcome.code === 0) {
    const error = `the answer did not pass --json-schema after ${MAX_SCHEMA_ATTEMPTS} attempts: ${schemaErrors.join('; ')}`;
    io.stderr(`deft: ${error}\n`);
    outcome = { code: 1, subtype: 'error_max_structured_output_retries', error };
  }
  if (format === 'json') {
    const cost = prices ? sessionCost(headless.byModel, prices, run.model) : null;
    writeResult(io, {
      subtype: outcome.subtype,
      result: answer,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      sessionId,
      durationMs: Date.now() - run.startedAt,
      turns: headless.steps.size,
      usage: headless.usage(),
      // Only when every model the run used is priced: a partial sum would read as the whole cost.
      ...(cost && cost.unpriced.length === 0 ? { costUsd: cost.usd } : {}),
      denials: run.denials,
      ...(structured ? { structured } : {}),
      ...(run.worktree ? { worktree: run.worktree } : {}),
    });
  }
  return outcome.code;
}

/**
 * The exit code (and the json result's subtype) of a run that reached its end: 0 done, 1 error, 3 the prompt
 * refused by a hook, 4 out of budget (--max-steps / --max-turns), 130 interrupted. Says why on stderr.
 */
export function runOutcome(
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
