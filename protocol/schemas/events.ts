import { z } from 'zod';
import { RemoteConnection } from './remote';
import { approvalEventShapes, approvalSchemas } from './approvals';
import { agentEventShapes } from './agents';
import { checkpointEventShapes } from './checkpoints';
import { contextEventShapes } from './context';
import { goalEventShapes } from './goals';
import { hookEventShapes, hookSchemas } from './hooks';
import { mcpSchemas } from './mcp';
import { queueEventShapes } from './queue';
import { todoEventShapes } from './todo';
import { toolInputDisplaySchema, toolResultDisplaySchema } from './display';
import { Mention } from './files';
import { sessionSchemas } from './session';
import { preferenceSchemas } from './preferences';
import { builtOnce } from '../helpers/built-once';
import { settingsSchemas } from './settings';
import { skillSchemas } from './skills';
import { taskSchemas } from './tasks';
import { ELSEWHERE_LIMIT, worktreeSchemas } from './worktrees';

const base = { sessionId: z.string(), seq: z.number().int().nonnegative(), at: z.number() };

function sessionEvent<T extends string, S extends z.ZodRawShape>(type: T, shape: S) {
  return z.object({ type: z.literal(type), ...base, ...shape });
}

/** How a turn was started. */
export const TurnOrigin = z.enum(['user', 'skill', 'task', 'cron', 'goal', 'system']);
export type TurnOrigin = z.infer<typeof TurnOrigin>;

/**
 * Per-session events. `seq` increases by one per event within a session; a UI replays from its last seq.
 * Built on first use (sessionEventSchema): a host that validates no event (the CLI's text turn) never pays for them.
 */
const buildSessionEvent = () => {
  const { Attachment, ErrorInfo, FinishReason, SessionSummary, StopReason, Usage } = sessionSchemas();
  const { SkillSource, SkillTrigger } = skillSchemas();
  const approvals = approvalEventShapes();
  const todo = todoEventShapes();
  const goals = goalEventShapes();
  const contextShapes = contextEventShapes();
  const checkpoints = checkpointEventShapes();
  const hooks = hookEventShapes();
  const agents = agentEventShapes();
  const queue = queueEventShapes();
  return z.discriminatedUnion('type', [
    /** The session's summary changed (title, turn count, running state). */
    sessionEvent('session.updated', { session: SessionSummary }),
    /** A turn began with this prompt. */
    sessionEvent('turn.started', {
      turnId: z.string(),
      text: z.string(),
      attachments: z.array(Attachment),
      origin: TurnOrigin,
      mentions: z.array(Mention).optional(),
    }),
    /** A turn finished; `error` is set when stopReason is 'error'. */
    sessionEvent('turn.ended', { turnId: z.string(), stopReason: StopReason, error: ErrorInfo.optional(), durationMs: z.number() }),
    /** A model request began (a turn has one or more steps). */
    sessionEvent('step.started', { turnId: z.string(), step: z.number().int() }),
    /** The step failed transiently and will be retried; the UI discards the step's partial text. */
    sessionEvent('step.retrying', {
      turnId: z.string(),
      step: z.number().int(),
      attempt: z.number().int(),
      maxAttempts: z.number().int(),
      delayMs: z.number(),
      error: ErrorInfo,
    }),
    /** The model finished streaming this step. */
    sessionEvent('step.ended', { turnId: z.string(), step: z.number().int(), finishReason: FinishReason }),
    /** Streamed answer text. After a flush, consecutive deltas are merged; `fromSeq` is the first merged seq. */
    sessionEvent('assistant.delta', { turnId: z.string(), step: z.number().int(), text: z.string(), fromSeq: z.number().int().optional() }),
    /** Streamed reasoning text (providers that expose it). */
    sessionEvent('thinking.delta', { turnId: z.string(), step: z.number().int(), text: z.string(), fromSeq: z.number().int().optional() }),
    /** Something about a step the user should know that did not stop it (the server refused the effort setting). */
    sessionEvent('step.note', { turnId: z.string(), step: z.number().int(), message: z.string() }),
    /** A tool call passed validation and is about to run (or wait for approval). */
    sessionEvent('tool.call.started', {
      turnId: z.string(),
      step: z.number().int(),
      callId: z.string(),
      name: z.string(),
      args: z.unknown(),
      description: z.string(),
      display: toolInputDisplaySchema(),
    }),
    /** Live output or status from a running tool call. */
    sessionEvent('tool.call.progress', {
      turnId: z.string(),
      callId: z.string(),
      kind: z.enum(['stdout', 'stderr', 'output', 'status', 'progress']),
      text: z.string(),
    }),
    /** A tool call finished; `output` is the text the model received (capped). */
    sessionEvent('tool.call.result', {
      turnId: z.string(),
      callId: z.string(),
      name: z.string(),
      isError: z.boolean(),
      output: z.string(),
      display: toolResultDisplaySchema().optional(),
      durationMs: z.number(),
    }),
    /** Token usage for one step (by `model`, where known), and the running total for the session. */
    sessionEvent('usage', { turnId: z.string(), step: Usage, total: Usage, model: z.string().optional() }),
    /** Something went wrong; `message` is written for the user. */
    sessionEvent('error', { code: ErrorInfo.shape.code, message: z.string(), turnId: z.string().optional() }),
    // Skills
    /** A skill was loaded into the conversation; `content` is the expanded instructions the model reads (capped). */
    sessionEvent('skill.activated', {
      turnId: z.string().optional(),
      name: z.string(),
      args: z.string(),
      trigger: SkillTrigger,
      source: SkillSource,
      dir: z.string(),
      content: z.string(),
      callId: z.string().optional(),
    }),
    // Approvals (shapes in approvals.ts): permission mode, approval requests, questions, plan mode; then the todo list and goals.
    sessionEvent('permission.mode.changed', approvals['permission.mode.changed']),
    sessionEvent('approval.requested', approvals['approval.requested']),
    sessionEvent('approval.resolved', approvals['approval.resolved']),
    sessionEvent('question.asked', approvals['question.asked']),
    sessionEvent('question.answered', approvals['question.answered']),
    sessionEvent('plan.mode.changed', approvals['plan.mode.changed']),
    sessionEvent('todo.updated', todo['todo.updated']),
    sessionEvent('goal.updated', goals['goal.updated']),
    // Context: compaction and undo (shapes in context.ts).
    sessionEvent('compaction.started', contextShapes['compaction.started']),
    sessionEvent('compaction.ended', contextShapes['compaction.ended']),
    sessionEvent('turns.undone', contextShapes['turns.undone']),
    sessionEvent('turns.redone', contextShapes['turns.redone']),
    // Checkpoints: a turn's changed files, rewinds, change reviews (shapes in checkpoints.ts).
    sessionEvent('turn.changes', checkpoints['turn.changes']),
    sessionEvent('rewind.done', checkpoints['rewind.done']),
    sessionEvent('rewind.undone', checkpoints['rewind.undone']),
    sessionEvent('change.review.requested', checkpoints['change.review.requested']),
    sessionEvent('change.review.resolved', checkpoints['change.review.resolved']),
    sessionEvent('context.measured', contextShapes['context.measured']),
    // Hooks: what a user's hook command did (shapes in hooks.ts).
    sessionEvent('hook.ran', hooks['hook.ran']),
    // Sub-agents (shapes in agents.ts): their cards; what each one does streams as agent.event.
    sessionEvent('agent.updated', agents['agent.updated']),
    sessionEvent('swarm.updated', agents['swarm.updated']),
    // Messages typed while a turn runs (shapes in queue.ts).
    sessionEvent('prompt.queued', queue['prompt.queued']),
    sessionEvent('prompt.queue.edited', queue['prompt.queue.edited']),
    sessionEvent('prompt.queue.removed', queue['prompt.queue.removed']),
    sessionEvent('steer.delivered', queue['steer.delivered']),
  ]);
};
export type SessionEvent = z.infer<ReturnType<typeof buildSessionEvent>>;
/** The session event schema (a discriminated union on `type`), built the first time it is asked for. */
export const sessionEventSchema: () => ReturnType<typeof buildSessionEvent> = builtOnce(buildSessionEvent);
export type SessionEventType = SessionEvent['type'];
export type SessionEventOf<T extends SessionEventType> = Extract<SessionEvent, { type: T }>;

/** App-wide events (not tied to one session, never replayed). Built on first use (appEventSchema). */
const buildAppEvent = () => {
  const { PublicSettings } = settingsSchemas();
  const { PermissionRules } = approvalSchemas();
  const { HooksOverview } = hookSchemas();
  const { Preferences } = preferenceSchemas();
  const { CommandActivity, CronJobInfo, TaskInfo } = taskSchemas();
  return z.discriminatedUnion('type', [
    /** Settings were saved. */
    z.object({ type: z.literal('settings.updated'), settings: PublicSettings }),
    /** A session was deleted. */
    z.object({ type: z.literal('session.deleted'), sessionId: z.string() }),
    // Skills
    /** Skills were added, changed or removed on disk (or a rescan ran); the UI fetches the catalog again. */
    z.object({ type: z.literal('skills.changed'), version: z.number().int(), count: z.number().int(), skipped: z.number().int() }),

    // Shell and background work: live state, not replayed (listTasks gives the whole picture)
    /** A background task started (or a foreground command moved to the background). */
    z.object({ type: z.literal('task.started'), sessionId: z.string(), task: TaskInfo }),
    /** A running task wrote output: its latest tail and total size (sent at most a few times a second). */
    z.object({ type: z.literal('task.output'), sessionId: z.string(), taskId: z.string(), tail: z.string(), outputBytes: z.number().int() }),
    /** A background task ended (completed, failed, timed out, killed). */
    z.object({ type: z.literal('task.ended'), sessionId: z.string(), task: TaskInfo }),
    /** The session's scheduled prompts changed (created, fired, deleted). */
    z.object({ type: z.literal('cron.updated'), sessionId: z.string(), jobs: z.array(CronJobInfo) }),
    /** A running tool call's foreground command went quiet and is waiting, or produced output again. */
    z.object({ type: z.literal('command.activity'), sessionId: z.string(), activity: CommandActivity }),
    // Approvals: the permission rules (or their problems) changed.
    z.object({ type: z.literal('permissions.updated'), permissions: PermissionRules }),
    /** An MCP server changed state (started, connected, failed, its tools changed, …): the whole overview. */
    z.object({ type: z.literal('mcp.updated'), overview: mcpSchemas().McpOverview }),
    /** The window preferences changed (theme, notifications, prices), in this window or another. */
    z.object({ type: z.literal('preferences.updated'), preferences: Preferences }),
    /** The hooks in effect changed (a settings file changed, or the folder was trusted). */
    z.object({ type: z.literal('hooks.updated'), overview: HooksOverview }),
    /**
     * Live: an event of a sub-agent's own session (its log keeps it; getAgentTranscript replays it), tagged
     * with the parent session and the agent's id.
     */
    z.object({ type: z.literal('agent.event'), sessionId: z.string(), agentId: z.string(), event: sessionEventSchema() }),
    /** Sub-agent types were added, changed or removed on disk; the UI fetches them again. */
    z.object({ type: z.literal('agents.changed'), count: z.number().int(), skipped: z.number().int() }),
    /** A remote workspace's connection dropped, is being reopened, came back or was given up on. */
    z.object({ type: z.literal('workspace.connection'), remote: RemoteConnection }),
    /**
     * The host's word to one page (never from a core): what waits for the user in the host's OTHER cores (the web
     * host: the main checkout's and each worktree's), all of it each time; `total` counts beyond the list.
     */
    z
      .object({
        type: z.literal('requests.elsewhere'),
        requests: z.array(worktreeSchemas().ElsewhereRequest).max(ELSEWHERE_LIMIT),
        total: z.number().int().nonnegative(),
      })
      .strict(),
  ]);
};
export type AppEvent = z.infer<ReturnType<typeof buildAppEvent>>;
/** The app event schema (a discriminated union on `type`), built the first time it is asked for. */
export const appEventSchema: () => ReturnType<typeof buildAppEvent> = builtOnce(buildAppEvent);

/** Anything the core pushes to a UI. */
export type DeftEvent = SessionEvent | AppEvent;
export type DeftEventType = DeftEvent['type'];
export type DeftEventOf<T extends DeftEventType> = Extract<DeftEvent, { type: T }>;

/** Payload of a session event before the session stamps it with sessionId, seq and time. */
export type SessionEventInput = SessionEvent extends infer E ? (E extends SessionEvent ? Omit<E, 'sessionId' | 'seq' | 'at'> : never) : never;
