import { z } from 'zod';
import { approvalSchemas } from '#protocol/schemas/approvals';
import { commandSchemas } from '#protocol/schemas/commands';
import { sessionCost } from '#protocol/helpers/prices';
import type { createNodeCore } from '../compose';
import type { CliIo } from './io';
import { HeadlessRun } from './headless-run';
import { type PermissionDenial, type RunResult, runOutcome, writeResult } from './run-turn';

// deft run --input-format stream-json: prompts, steers and answers as JSON lines on stdin; events out on stdout.

type Core = ReturnType<typeof createNodeCore>;

/** The longest line read; a longer one is refused (and skipped), never buffered further. */
export const MAX_INPUT_LINE = 1_000_000;

const TextBlock = z.object({ type: z.literal('text'), text: z.string() }).passthrough();
/** Claude Code's user message line; content a string or text blocks. */
const UserLine = z
  .object({
    type: z.literal('user'),
    message: z.object({ role: z.literal('user'), content: z.union([z.string(), z.array(TextBlock).min(1)]) }).passthrough(),
  })
  .passthrough();
/** Deft's own lines: a steer into the running turn, an approval's answer, a question's answers, a stop. */
const SteerLine = z.object({ type: z.literal('steer'), text: z.string() }).strict();
const ApprovalLine = z
  .object({
    type: z.literal('approval'),
    id: z.string().min(1).max(100),
    decision: z.enum(['allow', 'deny']),
    /** 'session' remembers the call's rule for the session, as the window's "approve for session"; nothing is written to files. */
    scope: z.enum(['once', 'session']).optional(),
    message: z.string().max(20_000).optional(),
  })
  .strict();
const QuestionLine = z
  .object({ type: z.literal('question'), id: z.string().min(1).max(100), answers: z.array(z.unknown()).max(4).optional(), dismissed: z.boolean().optional() })
  .strict();
const InterruptLine = z.object({ type: z.literal('interrupt') }).strict();
const InputLine = z.discriminatedUnion('type', [UserLine, SteerLine, ApprovalLine, QuestionLine, InterruptLine]);

export interface StdinRun {
  sessionId: string;
  startedAt: number;
  model: string | undefined;
  denials: readonly PermissionDenial[];
  worktree?: RunResult['worktree'];
}

/**
 * A long-lived headless session: each line of `lines` is one input. User messages start a turn, or wait for the
 * next one while a turn runs (the prompt queue); steers reach the running turn at its next step; approvals asked
 * on stdout (`approval.requested`) are answered by id. A line that is not JSON or not one of these is reported
 * (an `input.error` event on stdout, and stderr) and skipped. Ends when stdin closes and the last turn is done
 * (what still waits for an answer then is refused); prints one `result` line; the exit code is the last turn's.
 */
export async function runStdinSession(
  core: Core,
  run: StdinRun,
  lines: AsyncIterable<string>,
  io: CliIo,
  onFirstCommand: () => Promise<void>,
  firstPrompt?: string,
): Promise<number> {
  const { sessionId } = run;
  const write = (object: unknown) => io.stdout(JSON.stringify(object) + '\n');
  const headless = new HeadlessRun(core, sessionId, { event: write, stderr: io.stderr, onFirstCommand });
  const prices = (await core.handlers.getPreferences({})).prices;
  let queued = 0;
  let stdinClosed = false;
  const waiting = { approvals: new Set<string>(), questions: new Set<string>() };
  const closeAnswer = 'stdin closed, so nobody can answer: refused.';
  const refuse = (requestId: string) =>
    core.handlers.answerApproval({ sessionId, requestId, answer: { decision: 'reject', feedback: closeAnswer } }).catch(() => undefined);
  const dismiss = (requestId: string) => core.handlers.answerQuestion({ sessionId, requestId, answers: [], dismissed: true }).catch(() => undefined);
  const unsubscribe = core.onEvent((event) => {
    if (!('seq' in event) || event.sessionId !== sessionId) return;
    if (event.type === 'prompt.queued') queued++;
    else if (event.type === 'prompt.queue.removed') queued = Math.max(0, queued - 1);
    else if (event.type === 'approval.requested') {
      if (stdinClosed) void refuse(event.requestId);
      else waiting.approvals.add(event.requestId);
    } else if (event.type === 'approval.resolved') waiting.approvals.delete(event.requestId);
    else if (event.type === 'question.asked') {
      if (stdinClosed) void dismiss(event.requestId);
      else waiting.questions.add(event.requestId);
    } else if (event.type === 'question.answered') waiting.questions.delete(event.requestId);
  });
  let lineNumber = 0;
  const problem = (message: string) => {
    write({ type: 'input.error', line: lineNumber, message });
    io.stderr(`deft: stdin line ${lineNumber}: ${message}\n`);
  };
  const prompt = async (text: string) => {
    if (!text.trim()) return problem('the message is empty');
    await core.handlers.queuePrompt({ sessionId, text });
  };
  const handle = async (line: string) => {
    if (!line.trim()) return;
    if (line.length > MAX_INPUT_LINE) return problem(`the line is longer than ${MAX_INPUT_LINE} characters; skipped`);
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (error) {
      return problem(`not JSON (${(error as Error).message}); skipped`);
    }
    const parsed = InputLine.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return problem(
        `not an input line (${issue ? `${issue.path.join('.') || 'line'}: ${issue.message}` : 'unknown shape'}); expected {"type":"user","message":{"role":"user","content":"…"}}, {"type":"steer","text":"…"}, {"type":"approval","id":"…","decision":"allow"|"deny"}, {"type":"question","id":"…","answers":[…]} or {"type":"interrupt"}`,
      );
    }
    const input = parsed.data;
    try {
      switch (input.type) {
        case 'user': {
          const { content } = input.message;
          return await prompt(typeof content === 'string' ? content : content.map((block) => block.text).join('\n\n'));
        }
        case 'steer':
          if (!input.text.trim()) return problem('the steer is empty');
          await core.handlers.queuePrompt({ sessionId, text: input.text, steer: true });
          return;
        case 'approval': {
          const answer = approvalSchemas().ApprovalAnswer.parse(
            input.decision === 'allow'
              ? { decision: 'approve', scope: input.scope ?? 'once' }
              : { decision: 'reject', ...(input.message ? { feedback: input.message } : {}) },
          );
          await core.handlers.answerApproval({ sessionId, requestId: input.id, answer });
          return;
        }
        case 'question': {
          const checked = commandSchemas().answerQuestion.input.safeParse({
            sessionId,
            requestId: input.id,
            answers: input.answers ?? [],
            dismissed: input.dismissed ?? false,
          });
          if (!checked.success) return problem(`not a question answer: ${checked.error.issues[0]?.message ?? 'invalid'}`);
          await core.handlers.answerQuestion(checked.data);
          return;
        }
        case 'interrupt':
          await core.handlers.cancelTurn({ sessionId });
          return;
      }
    } catch (error) {
      problem((error as Error).message);
    }
  };
  const removeInterrupt = io.onInterrupt?.(() => headless.interrupt());
  try {
    if (firstPrompt?.trim()) await prompt(firstPrompt);
    for await (const line of lines) {
      lineNumber++;
      await handle(line);
      if (headless.interrupted) break;
    }
    stdinClosed = true;
    for (const id of waiting.approvals) void refuse(id);
    for (const id of waiting.questions) void dismiss(id);
    // The last turn (and what is still queued after it) runs to its end.
    const stop = new AbortController();
    const removeStop = io.onInterrupt?.(() => stop.abort());
    try {
      do {
        await core.settled(sessionId);
        await core.turnDone(sessionId);
        if (queued > 0) await new Promise((resolve) => setTimeout(resolve, 20));
      } while (queued > 0 && !stop.signal.aborted && !headless.interrupted);
    } finally {
      removeStop?.();
    }
  } finally {
    removeInterrupt?.();
    unsubscribe();
    headless.close();
    await core.close();
  }
  // No prompt at all (stdin empty): nothing failed.
  const outcome =
    headless.end || headless.interrupted
      ? runOutcome(headless.end, headless.interrupted, headless.promptBlocked, io)
      : { code: 0, subtype: 'success' as const };
  const cost = sessionCost(headless.byModel, prices, run.model);
  writeResult(io, {
    subtype: outcome.subtype,
    result: headless.answer(),
    ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    sessionId,
    durationMs: Date.now() - run.startedAt,
    turns: headless.steps.size,
    usage: headless.usage(),
    ...(cost && cost.unpriced.length === 0 ? { costUsd: cost.usd } : {}),
    denials: run.denials,
    ...(run.worktree ? { worktree: run.worktree } : {}),
  });
  return outcome.code;
}
