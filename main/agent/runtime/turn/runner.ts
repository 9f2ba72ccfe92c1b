import type { Environment } from '#contract/environment';
import { randomUUID } from 'node:crypto';
import type { AppEvent, Attachment, EffortSetting } from '#protocol';
import { CommandError } from '#contract/errors';
import type { SessionHandle, TurnOutcome, TurnPrompt } from '#contract/capability';
import type { ContentPart } from '#contract/model';
import type { Tool, ToolEnv } from '#contract/tool';
import { ProviderError } from '#infra/providers/errors';
import { type RetryPolicy, defaultRetryPolicy } from '#infra/providers/retry';
import type { Session } from '#infra/sessions/session';
import type { ProviderConfig } from '#infra/settings/provider-config';
import type { CapabilitySet } from '../capability-set';
import type { ProviderSettings } from '../commands/settings-commands';
import { AUTO_COMPACT_RATIO, type ContextKeeper, newCompactionId } from '../compaction/context-keeper';
import { contextBreakdown } from '../compaction/tokens';
import { type FactSource, factReminder } from '../prompt/facts';
import { type WorkspaceFacts, workspaceFacts } from '../prompt/system-prompt';
import type { OpenSession } from '../session/open-session';
import type { SubagentHostDeps } from '../subagents/host';
import { promptHooks, stopHooks } from './hook-events';
import { mentionNote } from './mentions';
import type { QueuedPrompt } from './prompt-queue';
import { Runs } from './runs';
import { type StepSetupDeps, stepSetup } from './step-setup';
import { runSessionTurn } from './turn-session';

const FLUSH_INTERVAL_MS = 2_000;
/** How long sub-agents' system prompts reuse one reading of the workspace's facts. */
const WORKSPACE_FACTS_TTL_MS = 5_000;

export interface TurnRunnerOptions {
  environment: Environment;
  workspace: string;
  home: string;
  now: () => number;
  fetch?: typeof fetch;
  /** Extra tools for every session (tests); one with a capability tool's name stands in for it. */
  tools?: (env: ToolEnv) => Tool[];
  retry?: RetryPolicy;
  maxSteps?: number;
  abortGraceMs?: number;
  capabilities: CapabilitySet;
  provider: ProviderSettings;
  context: ContextKeeper;
  facts: FactSource;
  emit(event: AppEvent): void;
  /** The session loaded again, for a stale reference (a session let go of) that starts a turn. */
  reload(sessionId: string): Promise<OpenSession>;
}

/**
 * The turns of a core's sessions: one run at a time per session (a turn, or a compaction the user asked for), each
 * prompt recorded, its hooks and capabilities told, its steps run (turn-session.ts), and its end announced.
 */
export class TurnRunner {
  readonly runs = new Runs();
  private workspaceFactsCache: { at: number; facts: Promise<WorkspaceFacts> } | null = null;

  constructor(private readonly options: TurnRunnerOptions) {}

  private get retry(): RetryPolicy {
    return this.options.retry ?? defaultRetryPolicy;
  }

  /** Start a turn unless one is running or no model is configured; resolves to its id or null. */
  start(open: OpenSession, prompt: TurnPrompt): Promise<string | null> {
    const id = open.session.id;
    if (open.unloaded) return this.options.reload(id).then((loaded) => this.start(loaded, prompt));
    return this.runs.noteStarting(
      id,
      (async () => {
        if (this.runs.busy(id)) return null;
        const config = await this.options.provider.turnConfig();
        return config && !this.runs.busy(id) ? this.begin(open, config, prompt) : null;
      })(),
    );
  }

  /** The provider a turn uses; throws when none is configured. */
  async requireProvider(): Promise<ProviderConfig> {
    const config = await this.options.provider.turnConfig();
    if (!config) throw new CommandError('not_configured', 'No model is configured. Open Settings and choose a provider, base URL and model.');
    return config;
  }

  /** Begin a turn now (the caller checked the session is not busy); returns its id. `queued`: the waiting message it carries. */
  begin(open: OpenSession, provider: ProviderConfig, prompt: TurnPrompt, queued?: QueuedPrompt): string {
    const { session, handle } = open;
    const config = withSessionModel(provider, session);
    const turnId = `turn-${randomUUID().slice(0, 8)}`;
    if (queued) open.queue.sent(queued, turnId);
    const started = this.options.now();
    const attachments = prompt.attachments ?? [];
    this.runs.start(
      session,
      turnId,
      async (signal) => {
        session.noteTurnStarted(prompt.text);
        const mentions = prompt.mentions ?? [];
        session.emit({ type: 'turn.started', turnId, text: prompt.text, attachments, origin: prompt.origin, ...(mentions.length ? { mentions } : {}) });
        session.emit({ type: 'session.updated', session: session.summary() });
        const startContext = open.starting ? await open.starting : null;
        open.starting = null;
        // A loaded session left its large messages in the log: read them back without blocking before the model needs them.
        await session.loadContext();
        if (startContext) session.appendContext(startContext);
        // The user's UserPromptSubmit hooks may refuse the prompt (it never reaches the model) or add context after it.
        const submitted = await promptHooks(handle, prompt, turnId, signal);
        if (submitted.blocked || signal.aborted) {
          await session.flush().catch(() => {});
          const stopReason = signal.aborted ? 'cancelled' : 'end_turn';
          session.emit({ type: 'turn.ended', turnId, stopReason, durationMs: this.options.now() - started });
          return { stopReason };
        }
        // What changed since the model last heard (a mode the user switched, a skill edited) comes first, so the prompt is what it reads last.
        const reminder = factReminder(await this.options.facts(handle), session.context);
        if (reminder) session.appendContext(reminder);
        const modelText = (prompt.modelText ?? prompt.text) + mentionNote(mentions, this.options.workspace);
        session.appendContext({ role: 'user', content: userContent(modelText, attachments, config.imageInput), turnId });
        if (submitted.context) session.appendContext({ ...submitted.context, turnId });
        open.gates.push(this.options.capabilities.each((f) => f.onTurnStart?.(handle, { turnId, prompt })));
        // The prompt reaches disk at once, and a long stream every few seconds, so a crash loses little.
        void session.flush().catch(() => {});
        const periodicFlush = setInterval(() => void session.flush().catch(() => {}), FLUSH_INTERVAL_MS);
        const outcome = await this.execute(open, await this.withEffort(config, session.effort), turnId, signal);
        await Promise.all(open.gates.splice(0));
        clearInterval(periodicFlush);
        session.emit({
          type: 'turn.ended',
          turnId,
          stopReason: outcome.stopReason,
          ...(outcome.error ? { error: outcome.error } : {}),
          durationMs: this.options.now() - started,
        });
        return outcome;
      },
      async (outcome) => {
        await this.options.capabilities.each((f) => f.onTurnEnded?.(handle, outcome));
        // What the user queued meanwhile is the next turn, unless they stopped this one (then it waits for them).
        if (outcome.stopReason !== 'cancelled') await this.sendQueued(open);
        // A task notification the turn ended before reading gets a turn of its own (unless one started meanwhile).
        await open.tasks.onTurnEnded(outcome).catch(() => {});
      },
    );
    return turnId;
  }

  /**
   * Start a turn with a waiting message (`queueId`, else the first) unless a run is going or none waits; resolves to
   * the turn's id or null. A message whose turn cannot start (no model, or one started meanwhile) keeps its place.
   */
  async sendQueued(open: OpenSession, queueId?: string): Promise<string | null> {
    if (this.runs.busy(open.session.id) || !open.queue.waiting.length) return null;
    const config = await this.options.provider.turnConfig();
    if (!config || this.runs.busy(open.session.id)) return null;
    const item = open.queue.take(queueId);
    if (!item) return null;
    return this.begin(open, config, { text: item.text, origin: 'user', attachments: [] }, item);
  }

  /** A compaction the user asked for: runs like a turn (one at a time, stopped by cancelTurn) without being one. */
  compact(open: OpenSession, provider: ProviderConfig, instructions: string | undefined): string {
    const { session, handle } = open;
    const config = withSessionModel(provider, session);
    const compactionId = newCompactionId();
    this.runs.start(
      session,
      compactionId,
      async (signal) => {
        session.emit({ type: 'session.updated', session: session.summary() });
        try {
          const setup = await stepSetup(this.setupDeps(), session, handle, config);
          const { outcome, error } = await this.options.context.compact({
            session,
            handle,
            setup,
            trigger: 'manual',
            signal,
            compactionId,
            ...(instructions ? { instructions } : {}),
          });
          if (outcome === 'compacted') return { stopReason: 'end_turn' };
          return outcome === 'cancelled' ? { stopReason: 'cancelled' } : { stopReason: 'error', ...(error ? { error } : {}) };
        } catch (error) {
          const info = { code: 'internal' as const, message: `Compaction failed: ${(error as Error)?.message ?? String(error)}` };
          session.emit({ type: 'compaction.ended', compactionId, trigger: 'manual', outcome: 'failed', tokensBefore: 0, error: info });
          return { stopReason: 'error', error: info };
        }
      },
      async (outcome) => {
        // What the user queued while the conversation was compacted is the next turn (unless they stopped it).
        if (outcome.stopReason !== 'cancelled') await this.sendQueued(open);
      },
    );
    return compactionId;
  }

  /** What the sub-agents of a session need from the core: their calls are decided as the session's own. */
  subagentDeps(session: Session, handle: () => SessionHandle): SubagentHostDeps {
    const { options } = this;
    return {
      parent: {
        session,
        get handle() {
          return handle();
        },
      },
      // A swarm starts many sub-agents at once: they share one reading of the workspace (a git status) for a few seconds.
      setup: { ...this.setupDeps(), workspaceFacts: () => this.sharedWorkspaceFacts() },
      context: options.context,
      providerConfig: async () => {
        const config = await options.provider.turnConfig();
        return config && this.withEffort(config, undefined);
      },
      authorize: (call) => options.capabilities.authorize(handle(), call),
      parentFacts: () => options.facts(handle()),
      emitApp: (event) => options.emit(event),
      retry: this.retry,
      ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
      ...(options.abortGraceMs !== undefined ? { abortGraceMs: options.abortGraceMs } : {}),
      now: options.now,
    };
  }

  /** The effort a turn asks for: the session's choice, else the run's or the settings' for its model (`off`: none). */
  private async withEffort(config: ProviderConfig, chosen: EffortSetting | undefined): Promise<ProviderConfig> {
    const effort = chosen ?? (await this.options.provider.defaultEffort(config.model).catch(() => undefined));
    return effort && effort !== 'off' ? { ...config, effort } : config;
  }

  private setupDeps(): StepSetupDeps {
    const { environment, workspace, home, fetch, tools, now, capabilities } = this.options;
    return { environment, workspace, home, capabilities: capabilities.capabilities, now, ...(fetch ? { fetch } : {}), ...(tools ? { tools } : {}) };
  }

  private sharedWorkspaceFacts(): Promise<WorkspaceFacts> {
    const now = Date.now();
    if (!this.workspaceFactsCache || now - this.workspaceFactsCache.at > WORKSPACE_FACTS_TTL_MS)
      this.workspaceFactsCache = { at: now, facts: workspaceFacts(this.options.environment, this.options.workspace) };
    return this.workspaceFactsCache.facts;
  }

  private async execute(open: OpenSession, config: ProviderConfig, turnId: string, signal: AbortSignal): Promise<TurnOutcome> {
    const { session, handle } = open;
    const { capabilities } = this.options;
    try {
      const setup = await stepSetup(this.setupDeps(), session, handle, config);
      return await runSessionTurn({
        turnId,
        signal,
        session,
        handle,
        setup,
        context: this.options.context,
        injections: open.injections,
        steers: { deliver: (id, step) => open.queue.deliverSteers(id, step), waiting: () => open.queue.hasSteers() },
        facts: () => this.options.facts(handle),
        authorize: (call) => capabilities.authorize(handle, call),
        hooks: handle.hooks,
        countUsage: (id, usage, measured) => {
          session.countUsage(id, usage, config.model);
          // The provider's count for this step is what the context now holds (its input plus the answer just added).
          const tokens = usage.inputTokens + usage.outputTokens;
          const breakdown = contextBreakdown(measured.system, measured.tools, session.context, tokens);
          session.emit({ type: 'context.measured', turnId: id, tokens, contextWindow: measured.contextWindow, compactAt: AUTO_COMPACT_RATIO, breakdown });
        },
        onStep: () => open.tasks.noteStep(),
        gates: {
          pending: open.gates,
          stepEnded: (step) => capabilities.each((f) => f.onStepEnd?.(handle, step)),
          toolsStarting: (start) => capabilities.each((f) => f.onToolsStart?.(handle, start)),
          toolCallComing: (tool) => capabilities.each((f) => f.onToolCallComing?.(handle, { turnId, tool })),
        },
        onFinalAnswer: (continued) => stopHooks(handle, turnId, continued, signal),
        retry: this.retry,
        retryWait: open.retryWait,
        ...(this.options.maxSteps !== undefined ? { maxSteps: this.options.maxSteps } : {}),
        ...(this.options.abortGraceMs !== undefined ? { abortGraceMs: this.options.abortGraceMs } : {}),
      });
    } catch (error) {
      if (error instanceof ProviderError) return { stopReason: 'error', error: { code: error.code, message: error.message } };
      if (signal.aborted) return { stopReason: 'cancelled' };
      return { stopReason: 'error', error: { code: 'internal', message: `Deft hit an internal error: ${(error as Error)?.message ?? String(error)}` } };
    }
  }
}

function userContent(text: string, attachments: readonly Attachment[], imageInput: boolean): string | ContentPart[] {
  if (!attachments.length) return text;
  const list = attachments.map((a) => `- ${a.name}: ${a.path}`).join('\n');
  const onlyImages = attachments.every((a) => a.kind === 'image');
  const images = imageInput ? 'open images with ReadMediaFile' : 'this model cannot see images: ask the user what they show if it matters';
  const how = onlyImages ? images : `${images}, other files with Read`;
  return `${text}\n\nAttached files (${how}):\n${list}`;
}

/** The session's own model choice, when the user made one, over the provider's. */
function withSessionModel(config: ProviderConfig, session: Session): ProviderConfig {
  return session.model ? { ...config, model: session.model } : config;
}
