import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppEvent, SessionEvent, Usage } from '#protocol';
import type { Authorization, ResolvedCall } from '#contract/calls';
import { CommandError } from '#contract/errors';
import type { Fact } from '#contract/facts';
import type { SessionHandle } from '#contract/capability';
import type { SessionSandbox } from '#contract/sandbox';
import { AGENT_ID_PATTERN, type SessionSubagents, type Subagent, type SubagentLabel, type SubagentRunOptions, type SubagentTurn } from '#contract/subagents';
import { ProviderError } from '#infra/providers/errors';
import type { RetryPolicy } from '#infra/providers/retry';
import type { ChatProvider, ModelMessage } from '#contract/model';
import { META_FILE, Session, type SessionMeta } from '#infra/sessions/session';
import type { ProviderConfig } from '#infra/settings/provider-config';
import type { ContextKeeper } from '../compaction/context-keeper';
import { type FactGroup, factReminder } from '../prompt/facts';
import { sessionBasics } from '../session/basics';
import { type StepSetupDeps, stepSetup } from '../turn/step-setup';
import { runSessionTurn } from '../turn/turn-session';

/** What the sub-agents of one session need from the core that runs it. */
export interface SubagentHostDeps {
  parent: { session: Session; handle: SessionHandle };
  setup: StepSetupDeps;
  context: ContextKeeper;
  /** The provider settings for a turn (with the model a definition names, when it names one); null when none is configured. */
  providerConfig(): Promise<ProviderConfig | null>;
  /** Decide on a sub-agent's call as on the parent's own (same mode, rules, session approvals, plan mode). */
  authorize(call: ResolvedCall): Promise<Authorization>;
  /** What the parent session's model is told now (date, mode, plan mode, tasks, skills…): a sub-agent hears what applies to it. */
  parentFacts(): Promise<FactGroup[]>;
  emitApp(event: AppEvent): void;
  retry: RetryPolicy;
  maxSteps?: number;
  abortGraceMs?: number;
  now: () => number;
}

/**
 * The facts a sub-agent is told: the parent's, less those about the parent's own work (its todo list, goal, background
 * tasks: Fact.mainAgentOnly), and those meant for a tool only when it has the tool (the skill listing: Fact.forTool).
 */
export function subagentFacts(groups: readonly FactGroup[], allowsTool: (name: string) => boolean): FactGroup[] {
  const applies = (fact: Fact) => !fact.mainAgentOnly && (!fact.forTool || allowsTool(fact.forTool));
  return groups.map((group) => ({ ...group, facts: group.facts.filter(applies) }));
}

/** `<parent>/agents/<agent-id>/`: a sub-agent's session lives under its parent's folder. */
export const AGENTS_DIR = 'agents';
const AGENT_FILE = 'agent.json';

interface AgentRecord {
  agentId: string;
  type: string;
  description: string;
  createdAt: number;
}

/** The sub-agents of one session (SessionHandle.subagents). */
export class SubagentHost implements SessionSubagents {
  /** Sub-agents in memory: while they run (an idle one is read from its log again when needed, so finished ones cost nothing). */
  private readonly loaded = new Map<string, Promise<ChildAgent | undefined>>();
  /** Ids of the sub-agents running a turn now, whichever object runs it. */
  private readonly running = new Set<string>();

  constructor(private readonly deps: SubagentHostDeps) {}

  /** Whether any of its sub-agents runs a turn now. */
  get active(): boolean {
    return this.running.size > 0;
  }

  private get root(): string {
    return join(this.deps.parent.session.dir, AGENTS_DIR);
  }

  async create(meta: { type: string; description: string }): Promise<Subagent> {
    let agentId = newAgentId();
    while (this.loaded.has(agentId)) agentId = newAgentId();
    const dir = join(this.root, agentId);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const createdAt = this.deps.now();
    const record: AgentRecord = { agentId, type: meta.type, description: meta.description, createdAt };
    await writeFile(join(dir, AGENT_FILE), JSON.stringify(record, null, 2) + '\n', { mode: 0o600 });
    const sessionMeta: SessionMeta = { id: agentId, title: meta.description, workspace: this.deps.setup.workspace, createdAt, updatedAt: createdAt, turns: 0 };
    const session = await Session.create(dir, sessionMeta, this.deps.now);
    const child = new ChildAgent(record, session, this.deps, this.runState(agentId));
    this.loaded.set(agentId, Promise.resolve(child));
    return child;
  }

  open(agentId: string): Promise<Subagent | undefined> {
    if (!AGENT_ID_PATTERN.test(agentId)) return Promise.resolve(undefined);
    let found = this.loaded.get(agentId);
    if (!found) {
      found = this.load(agentId);
      this.loaded.set(agentId, found);
      // A failed load is tried again next time (the files may be being written).
      void found.then((child) => child ?? this.loaded.delete(agentId));
    }
    return found;
  }

  async list(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch {
      return [];
    }
    const dated = await Promise.all(
      names.filter((n) => AGENT_ID_PATTERN.test(n)).map(async (id) => ({ id, at: (await stat(join(this.root, id, AGENT_FILE)).catch(() => null))?.mtimeMs })),
    );
    return dated
      .filter((d) => d.at !== undefined)
      .sort((a, b) => a.at! - b.at!)
      .map((d) => d.id);
  }

  /** What a sub-agent's object needs to know and say about running: shared by every object of that id. */
  private runState(agentId: string): RunState {
    return {
      busy: () => this.running.has(agentId),
      begin: () => void this.running.add(agentId),
      end: () => {
        this.running.delete(agentId);
        this.loaded.delete(agentId);
      },
    };
  }

  private async load(agentId: string): Promise<ChildAgent | undefined> {
    const dir = join(this.root, agentId);
    try {
      const record = JSON.parse(await readFile(join(dir, AGENT_FILE), 'utf8')) as AgentRecord;
      const meta = JSON.parse(await readFile(join(dir, META_FILE), 'utf8')) as SessionMeta;
      if (record.agentId !== agentId || typeof record.type !== 'string' || meta.id !== agentId) return undefined;
      const { session } = await Session.load(dir, meta, this.deps.now);
      return new ChildAgent(record, session, this.deps, this.runState(agentId));
    } catch {
      return undefined;
    }
  }
}

interface RunState {
  busy(): boolean;
  begin(): void;
  /** A turn ended: the sub-agent is idle, and its object may be dropped from memory. */
  end(): void;
}

/** A sub-agent's session: its own context and log, run a turn at a time. */
class ChildAgent implements Subagent {
  private readonly injections: string[] = [];
  readonly handle: SessionHandle;
  /** The OS sandbox of the turn running now, when not the parent's (an isolated sub-agent's worktree). */
  private turnSandbox: SessionSandbox | undefined;

  constructor(
    private readonly record: AgentRecord,
    private readonly session: Session,
    private readonly deps: SubagentHostDeps,
    private readonly state: RunState,
  ) {
    this.handle = childHandle(session, deps.parent.handle, this.label, this.injections, () => this.turnSandbox);
  }

  get id(): string {
    return this.record.agentId;
  }
  get type(): string {
    return this.record.type;
  }
  get description(): string {
    return this.record.description;
  }
  get dir(): string {
    return this.session.dir;
  }
  get busy(): boolean {
    return this.state.busy();
  }
  private get label(): SubagentLabel {
    return { agentId: this.record.agentId, type: this.record.type, description: this.record.description };
  }

  usage(): Usage {
    return { ...this.session.usageTotal };
  }

  events(): Promise<readonly SessionEvent[]> {
    return this.session.allEvents();
  }

  async run(prompt: string | null, options: SubagentRunOptions): Promise<SubagentTurn> {
    if (this.state.busy()) return { status: 'failed', text: '', steps: 0, error: { code: 'internal', message: `Sub-agent ${this.id} is already running.` } };
    this.state.begin();
    this.turnSandbox = options.sandbox;
    const { session, deps } = this;
    const turnId = `turn-${randomUUID().slice(0, 8)}`;
    const started = deps.now();
    let steps = 0;
    const unsubscribe = session.subscribe((event) => {
      if (event.type === 'step.started') steps++;
      deps.emitApp({ type: 'agent.event', sessionId: deps.parent.session.id, agentId: this.id, event });
      try {
        options.onEvent?.(event);
      } catch {
        // A listener's failure must not break the sub-agent.
      }
    });
    session.running = true;
    let outcome: SubagentTurn;
    try {
      const text = prompt ?? 'Continue where you left off.';
      session.noteTurnStarted(text);
      await session.loadContext();
      session.emit({ type: 'turn.started', turnId, text, attachments: [], origin: prompt === null ? 'system' : 'user' });
      if (prompt !== null) session.appendContext({ role: 'user', content: prompt, turnId });
      // What holds now (the mode, plan mode…) follows the prompt: the conversation starts with the prompt verbatim.
      const facts = await this.factReminder(options, session.context);
      if (facts) session.appendContext(facts);
      outcome = await this.turn(turnId, options);
      session.emit({
        type: 'turn.ended',
        turnId,
        stopReason: turnStopReason(outcome),
        ...(outcome.error ? { error: outcome.error } : {}),
        durationMs: deps.now() - started,
      });
    } catch (error) {
      outcome = {
        status: 'failed',
        text: '',
        steps,
        error: { code: 'internal', message: `The sub-agent hit an internal error: ${(error as Error)?.message ?? String(error)}` },
      };
      session.emit({ type: 'turn.ended', turnId, stopReason: 'error', error: outcome.error!, durationMs: deps.now() - started });
    } finally {
      session.running = false;
      session.touch();
      await session.flush().catch(() => {});
      unsubscribe();
      this.turnSandbox = undefined;
      this.state.end();
    }
    return { ...outcome, steps };
  }

  /** One reminder with what changed since this sub-agent's conversation last heard it; null when nothing did. */
  private async factReminder(options: SubagentRunOptions, history: readonly ModelMessage[]): Promise<ModelMessage | null> {
    try {
      return factReminder(subagentFacts(await this.deps.parentFacts(), options.profile.allowsTool), history);
    } catch {
      return null;
    }
  }

  private async turn(turnId: string, options: SubagentRunOptions): Promise<SubagentTurn> {
    const { session, deps, handle } = this;
    const base = await deps.providerConfig();
    if (!base) return { status: 'failed', text: '', steps: 0, error: { code: 'not_configured', message: 'No model is configured.' } };
    const config = options.profile.model ? { ...base, model: options.profile.model } : base;
    // An isolated sub-agent's tools work in its worktree: its own workspace (and its own reading of the workspace's facts).
    const { workspaceFacts, ...shared } = deps.setup;
    const place = options.workspace ? { ...shared, workspace: options.workspace } : { ...shared, ...(workspaceFacts ? { workspaceFacts } : {}) };
    const setup = await stepSetup(
      { ...place, subagent: { allowsTool: options.profile.allowsTool, section: options.profile.systemPrompt } },
      session,
      handle,
      config,
    );
    const provider = options.failFastOnRateLimit ? failFastOnRateLimit(setup.provider) : setup.provider;
    // The same turn as a session's own (turn/turn-session.ts); what differs: the facts it is told, who pays, no hooks of its own.
    const result = await runSessionTurn({
      turnId,
      signal: options.signal,
      session,
      handle,
      setup: { ...setup, provider },
      context: deps.context,
      injections: this.injections,
      facts: async () => subagentFacts(await deps.parentFacts(), options.profile.allowsTool),
      authorize: (call) => deps.authorize({ ...call, agent: this.label, ...(options.workspace ? { workspace: options.workspace } : {}) }),
      countUsage: (id, usage) => {
        session.countUsage(id, usage);
        // The parent pays for its sub-agents: goal budgets and the header count their tokens too.
        deps.parent.session.countUsage(id, usage);
      },
      retry: deps.retry,
      ...(deps.maxSteps !== undefined ? { maxSteps: deps.maxSteps } : {}),
      ...(deps.abortGraceMs !== undefined ? { abortGraceMs: deps.abortGraceMs } : {}),
    });
    const text = finalText(session.context);
    if (result.stopReason === 'cancelled') return { status: 'cancelled', text, steps: 0 };
    if (result.stopReason === 'error') return { status: 'failed', text, steps: 0, ...(result.error ? { error: result.error } : {}) };
    if (result.stopReason === 'max_steps')
      return { status: 'failed', text, steps: 0, error: { code: 'internal', message: 'The sub-agent reached the step limit before answering.' } };
    return { status: 'completed', text, steps: 0 };
  }
}

function turnStopReason(outcome: SubagentTurn) {
  return outcome.status === 'completed' ? ('end_turn' as const) : outcome.status === 'cancelled' ? ('cancelled' as const) : ('error' as const);
}

/** The text of the last answer without tool calls (what the sub-agent hands back). */
function finalText(context: readonly ModelMessage[]): string {
  for (let i = context.length - 1; i >= 0; i--) {
    const message = context[i]!;
    if (message.role === 'user' || message.role === 'tool') return '';
    if (message.role === 'assistant' && !message.toolCalls?.length && typeof message.content === 'string') return message.content.trim();
  }
  return '';
}

/** A provider whose rate-limit errors are final, so the caller can reschedule instead of waiting inside the turn. */
function failFastOnRateLimit(provider: ChatProvider): ChatProvider {
  return {
    kind: provider.kind,
    model: provider.model,
    capabilities: provider.capabilities,
    listModels: (signal) => provider.listModels(signal),
    listModelInfo: (signal) => provider.listModelInfo(signal),
    step: async (request, callbacks) => {
      try {
        return await provider.step(request, callbacks);
      } catch (error) {
        if (error instanceof ProviderError && error.code === 'provider_rate_limit')
          throw new ProviderError(error.code, error.message, { ...error.options, retryable: false });
        throw error;
      }
    },
  };
}

/**
 * What the capabilities see of a sub-agent's session: its own events, state and context; the parent's
 * background tasks and sandbox (so its commands show in the tasks panel and run under the same policy) — for
 * an isolated sub-agent's turn, the parent's sandbox made for its worktree (`turnSandbox`). It cannot start
 * turns of its own, nor sub-agents.
 */
function childHandle(
  session: Session,
  parent: SessionHandle,
  label: SubagentLabel,
  injections: string[],
  turnSandbox: () => SessionSandbox | undefined,
): SessionHandle {
  const refuse = async (): Promise<never> => {
    throw new CommandError('invalid_request', 'A sub-agent cannot change its turns.');
  };
  const handle = Object.assign(sessionBasics(session), {
    startTurn: async () => null,
    inject: (text: string) => void injections.push(text),
    tasks: parent.tasks,
    // The user's hooks fire for a sub-agent's tool calls too, as the parent session's.
    hooks: parent.hooks,
    subagents: {
      create: async (): Promise<never> => {
        throw new CommandError('invalid_request', 'A sub-agent cannot start sub-agents of its own.');
      },
      open: async () => undefined,
      list: async () => [],
    },
    agent: label,
    parentId: parent.id,
    undoFrom: refuse,
    redoUndo: refuse,
  });
  return Object.defineProperty(handle, 'sandbox', { get: () => turnSandbox() ?? parent.sandbox, enumerable: true }) as typeof handle & {
    readonly sandbox: SessionSandbox;
  };
}

function newAgentId(): string {
  const bytes = randomBytes(8);
  let id = 'a';
  for (const byte of bytes) id += (byte % 36).toString(36);
  return id;
}
