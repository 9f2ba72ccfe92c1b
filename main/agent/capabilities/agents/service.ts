import type { SessionEvent } from '#protocol';
import type { CoreContext, SessionHandle } from '#contract/capability';
import type { Subagent } from '#contract/subagents';
import { TaskLimitError } from '#contract/tasks';
import type { ToolResult, ToolRunContext } from '#contract/tool';
import { AgentTask } from './agent-task';
import { type Isolation, type IsolatedTree, closeIsolation, openIsolation, worktreeLines } from './isolation';
import { backgroundStarted, foregroundResult } from './results';
import { type AgentOutcome, type AgentRun, runAgent } from './runner';
import { TranscriptText } from './transcript';
import type { AgentType } from './types/builtin';
import { AgentTypeCatalog } from './types/catalog';
import { type DefinitionWatcher, watchDefinitionFolders } from './types/watcher';
import type { SwarmLimits } from './swarm-scheduler';

export interface AgentCallArgs {
  description: string;
  prompt: string;
  /** `worktree`: it works in a git worktree of its own, on a new branch. */
  isolation?: Isolation;
}

/** Running sub-agents and swarms, by session, so the window's Stop buttons can reach them. */
class LiveAgents {
  private readonly controllers = new Map<string, Map<string, AbortController>>();

  add(sessionId: string, key: string, controller: AbortController): () => void {
    const map = this.controllers.get(sessionId) ?? new Map<string, AbortController>();
    this.controllers.set(sessionId, map);
    map.set(key, controller);
    return () => map.delete(key);
  }

  stop(sessionId: string, key: string): number {
    const controller = this.controllers.get(sessionId)?.get(key);
    if (!controller || controller.signal.aborted) return 0;
    controller.abort(new Error('Stopped by the user'));
    return 1;
  }

  /** Whether a sub-agent or swarm of the session runs now. */
  running(sessionId: string): boolean {
    return (this.controllers.get(sessionId)?.size ?? 0) > 0;
  }

  /** Drop the session's (empty) entry. */
  forget(sessionId: string): void {
    if (!this.running(sessionId)) this.controllers.delete(sessionId);
  }

  stopAll(sessionId?: string): void {
    for (const [id, map] of this.controllers) if (!sessionId || id === sessionId) for (const c of map.values()) c.abort(new Error('Stopped'));
  }
}

/** What the agents capability keeps for one core: the types, and the sub-agents running now. */
export class AgentsService {
  readonly catalog: AgentTypeCatalog;
  readonly live = new LiveAgents();
  readonly watcher: DefinitionWatcher;

  constructor(
    readonly core: CoreContext,
    readonly swarmLimits: Partial<SwarmLimits> = {},
  ) {
    this.catalog = new AgentTypeCatalog({ workspace: core.place, home: core.home }, (snapshot) =>
      core.emitApp({ type: 'agents.changed', count: snapshot.types.length, skipped: snapshot.skipped.length }),
    );
    // Definitions added, edited or removed are read again at once (the Agent tool's description, Settings). Only this
    // machine's folders are watched, and only where a window shows them: a remote workspace's, and every one in a
    // host without a window, are read again at every turn's start (and when listed).
    this.watcher = watchDefinitionFolders(
      this.catalog
        .folders()
        .filter((f) => core.host.hasWindow && f.environment.kind === 'local')
        .map((f) => f.path),
      () => void this.catalog.refresh(),
    );
  }

  close(): Promise<void> {
    this.live.stopAll();
    return this.watcher.close();
  }

  type(name: string): AgentType | undefined {
    return this.catalog.find(name);
  }

  typeNames(): string[] {
    return this.catalog.snapshot.types.map((t) => t.name);
  }

  /** The types as the Agent tool's description lists them. */
  typeList(): string {
    return this.catalog.snapshot.types
      .map((t) => `- \`${t.name}\`: ${t.description}${t.tools.includes('*') ? '' : ` (tools: ${t.tools.join(', ')})`}`)
      .join('\n');
  }

  /** A sub-agent for a call: the one being resumed, or a new one. */
  async agentFor(session: SessionHandle, type: AgentType, existing: Subagent | undefined, description: string): Promise<Subagent> {
    return existing ?? session.subagents.create({ type: type.name, description });
  }

  /** Run a sub-agent with its own stop control (the window's Stop), also stopped by `signal`. */
  async run(run: Omit<AgentRun, 'signal'> & { signal?: AbortSignal; controller?: AbortController }): Promise<AgentOutcome> {
    const controller = run.controller ?? new AbortController();
    const signal = run.signal ? AbortSignal.any([run.signal, controller.signal]) : controller.signal;
    const forget = this.live.add(run.session.id, run.agent.id, controller);
    try {
      return await runAgent({ ...run, signal });
    } finally {
      forget();
    }
  }

  /** A worktree for an isolated sub-agent, or a readable refusal. */
  async isolate(isolation: Isolation | undefined, description: string, sessionId: string): Promise<{ tree: IsolatedTree | null } | { refused: string }> {
    if (isolation !== 'worktree') return { tree: null };
    try {
      return { tree: await openIsolation(this.core, description, sessionId) };
    } catch (error) {
      return { refused: `The sub-agent was not started: ${(error as Error).message}` };
    }
  }

  /** Commit an isolated sub-agent's changes on its branch; the lines its result gets about them. */
  async settle(tree: IsolatedTree | null, agent: Subagent, description: string): Promise<string[]> {
    if (!tree) return [];
    return worktreeLines(await closeIsolation(this.core, tree, `${agent.type} sub-agent ${agent.id}: ${description}`));
  }

  async runForeground(
    session: SessionHandle,
    call: { type: AgentType; existing: Subagent | undefined; args: AgentCallArgs; ctx: ToolRunContext },
  ): Promise<ToolResult> {
    const { type, args, ctx } = call;
    let agent: Subagent;
    try {
      agent = await this.agentFor(session, type, call.existing, args.description);
    } catch (error) {
      return { output: `The sub-agent could not be started: ${(error as Error).message}`, isError: true };
    }
    const isolated = await this.isolate(args.isolation, args.description, session.id);
    if ('refused' in isolated) return { output: isolated.refused, isError: true };
    const { tree } = isolated;
    ctx.onUpdate({ kind: 'status', text: `${agent.id} working${tree ? ` in worktree ${tree.name}` : ''}` });
    const outcome = await this.run({
      session,
      agent,
      type,
      prompt: args.prompt,
      signal: ctx.signal,
      placement: { callId: ctx.callId },
      ...(tree ? { tree } : {}),
      onEvent: (event) => {
        if (event.type === 'tool.call.started') ctx.onUpdate({ kind: 'status', text: `${agent.id}: ${event.name} ${event.description}` });
      },
    });
    return foregroundResult(agent.id, type.name, outcome, await this.settle(tree, agent, args.description));
  }

  async startBackground(
    session: SessionHandle,
    call: { type: AgentType; existing: Subagent | undefined; args: AgentCallArgs; callId: string },
  ): Promise<ToolResult> {
    const { type, args } = call;
    let release: () => void;
    try {
      release = await session.tasks.reserve();
    } catch (error) {
      if (error instanceof TaskLimitError) return { output: `${error.message} The sub-agent was not started.`, isError: true };
      throw error;
    }
    let agent: Subagent;
    try {
      agent = await this.agentFor(session, type, call.existing, args.description);
    } catch (error) {
      release();
      return { output: `The sub-agent could not be started: ${(error as Error).message}`, isError: true };
    }
    const isolated = await this.isolate(args.isolation, args.description, session.id);
    if ('refused' in isolated) {
      release();
      return { output: isolated.refused, isError: true };
    }
    const { tree } = isolated;
    const taskId = session.tasks.newId('agent');
    const outputPath = session.tasks.outputPath(taskId);
    const task = new AgentTask(outputPath, agent.id);
    const transcript = new TranscriptText((text) => task.write(text));
    session.tasks.start(
      {
        id: taskId,
        kind: 'agent',
        description: args.description,
        command: `${type.name} sub-agent ${agent.id}`,
        cwd: tree?.path ?? this.core.workspace,
        startedAt: Date.now(),
        timeoutSec: null,
        outputPath,
      },
      task,
    );
    release();
    void this.run({
      session,
      agent,
      type,
      prompt: args.prompt,
      controller: task.controller,
      placement: { callId: call.callId, taskId },
      ...(tree ? { tree } : {}),
      onEvent: (event: SessionEvent) => transcript.add(event),
    }).then(
      async (outcome) => {
        const lines = await this.settle(tree, agent, args.description);
        return task.finish(lines.length ? { ...outcome, text: [...lines, '', outcome.text].join('\n') } : outcome);
      },
      (error: unknown) => task.finish({ status: 'failed', text: '', error: { code: 'internal', message: String((error as Error)?.message ?? error) } }),
    );
    return { output: backgroundStarted(taskId, agent.id, type.name), display: { kind: 'task', taskId, status: 'running', description: args.description } };
  }
}
