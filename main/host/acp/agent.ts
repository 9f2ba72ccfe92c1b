import {
  type AgentConnection,
  type AvailableCommand,
  type ClientCapabilities,
  type ContentBlock,
  type PromptResponse,
  PROTOCOL_VERSION,
  RequestError,
  type SessionUpdate,
  type Stream,
  type StopReason as AcpStopReason,
  agent,
} from '@agentclientprotocol/sdk';
import type { CommandName, CommandOutput, DeftEvent, EffortSetting, SessionEvent, SessionSummary, StopReason } from '#protocol';
import { parseSlashCommand, slashCommands } from '#protocol/helpers/slash';
import type { ClientFiles } from '#infra/environment/client-fs/client-fs-environment';
import { dispatchCommand } from '../dispatch';
import { DEFAULT_EFFORT, EFFORT_OPTION, MODEL_OPTION, configOptions, offers } from './config-options';
import { modeState, parseMode } from './modes';
import { createAsking } from './asking';
import { authMethods, authenticate, requireProvider } from './auth';
import { promptParts } from './prompt';
import { SessionUpdates } from './session-updates';
import { editorTerminals } from './terminals';
import { replayWholeFiles, wholeFileUpdate } from './whole-file';
import { type CoreSettings, type Workspace, Workspaces } from './workspaces';

/** One session the client opened (new or loaded) on this connection. */
interface LiveSession {
  readonly id: string;
  readonly workspace: Workspace;
  readonly cwd: string;
  updates: SessionUpdates;
  prompting: boolean;
  /** The model and effort this session chose (absent: the provider's and the settings' default). */
  model?: string | undefined;
  effort?: EffortSetting | undefined;
  /** Permission requests sent to the client and not answered yet, by Deft's request id: aborted when Deft settles them. */
  readonly asking: Map<string, AbortController>;
}

/**
 * `deft acp`: Deft's core behind the Agent Client Protocol, over `stream`. A host like the CLI: it translates ACP
 * requests into Deft's commands and Deft's events into ACP updates; the agent's logic stays in the core.
 */
export function serveAcp(stream: Stream, settings: CoreSettings): { connection: AgentConnection; closed: Promise<void> } {
  let clientCapabilities: ClientCapabilities = {};
  const sessions = new Map<string, LiveSession>();
  let connection: AgentConnection | null = null;

  const clientFiles = (workspace: Workspace): ClientFiles => {
    const sessionId = workspace.activeSession;
    const client = connection?.client;
    if (!sessionId || !client) return {};
    return {
      ...(clientCapabilities.fs?.readTextFile
        ? { readText: async (path: string) => (await client.request('fs/read_text_file', { sessionId, path })).content }
        : {}),
      ...(clientCapabilities.fs?.writeTextFile
        ? {
            writeText: async (path: string, content: string) => {
              await client.request('fs/write_text_file', { sessionId, path, content });
            },
          }
        : {}),
    };
  };
  const terminalShown = (sessionId: string, toolCallId: string, terminalId: string) => {
    const session = sessions.get(sessionId);
    if (session) for (const update of session.updates.terminal(toolCallId, terminalId)) send(sessionId, update);
  };
  const workspaces = new Workspaces(
    settings,
    () => clientCapabilities,
    clientFiles,
    (workspace) => editorTerminals(clientCapabilities, connection?.client ?? null, workspace.activeSession, terminalShown),
  );
  const listening = new WeakSet<Workspace>();

  /** A Deft command through the one validating entry point; a failure becomes the client's JSON-RPC error. */
  const call = async <N extends CommandName>(workspace: Workspace, name: N, input: unknown): Promise<CommandOutput<N>> => {
    const reply = await dispatchCommand(workspace.core.handlers, name, input, (message) => settings.stderr(`${message}\n`));
    if (!reply.ok) {
      const code = reply.error.code === 'not_found' ? -32002 : reply.error.code === 'invalid_request' ? -32602 : -32603;
      throw new RequestError(code, reply.error.message);
    }
    return reply.result as CommandOutput<N>;
  };

  const send = (sessionId: string, update: SessionUpdate) => {
    void connection?.client.notify('session/update', { sessionId, update }).catch(() => {});
  };

  const live = (sessionId: string): LiveSession => {
    const session = sessions.get(sessionId);
    if (!session)
      throw new RequestError(-32002, `No session ${JSON.stringify(sessionId)} on this connection: create it with session/new or load it with session/load.`);
    return session;
  };

  const listen = (workspace: Workspace) => {
    if (listening.has(workspace)) return;
    listening.add(workspace);
    workspace.core.onEvent((event: DeftEvent) => {
      if (!('seq' in event)) return;
      const session = sessions.get(event.sessionId);
      if (!session) return;
      for (const update of session.updates.translate(event)) send(session.id, update);
      if (event.type === 'tool.call.result') void sendWholeFile(session, event);
      if (event.type === 'approval.requested' || event.type === 'question.asked') asking.ask(session, event);
      else if (event.type === 'approval.resolved' || event.type === 'question.answered') asking.settled(session, event.requestId);
    });
  };

  /** A finished Write/Edit's hunks replaced with the whole file, where it is small and unchanged since. */
  const sendWholeFile = async (session: LiveSession, event: Extract<SessionEvent, { type: 'tool.call.result' }>) => {
    const read = (path: string) => call(session.workspace, 'readWorkspaceFile', { path }).catch(() => null);
    const update = await wholeFileUpdate(event, session.cwd, read);
    if (update && sessions.get(session.id) === session) send(session.id, update);
  };

  const asking = createAsking<LiveSession>({
    client: () => connection?.client ?? null,
    capabilities: () => clientCapabilities,
    answerApproval: (session, requestId, answer) => call(session.workspace, 'answerApproval', { sessionId: session.id, requestId, answer }),
    answerQuestion: (session, requestId, answers, dismissed) =>
      call(session.workspace, 'answerQuestion', { sessionId: session.id, requestId, answers, dismissed }),
  });

  const availableCommands = async (workspace: Workspace): Promise<AvailableCommand[]> => {
    const { skills } = await call(workspace, 'listSkills', {});
    return [
      { name: 'compact', description: 'Summarise the conversation so far to free the context.', input: { hint: 'what to keep (optional)' } },
      ...slashCommands(skills).map(({ command, skill }) => ({
        name: command,
        description: skill.description,
        ...(skill.argumentHint ? { input: { hint: skill.argumentHint } } : {}),
      })),
    ];
  };

  const modelLists = new WeakMap<Workspace, Promise<string[]>>();
  /** The session's model and effort selectors; the provider's model list is asked for once per workspace (5 s at most). */
  const sessionConfig = async (session: LiveSession) => {
    const { workspace } = session;
    let models = modelLists.get(workspace);
    if (!models) {
      const listed = call(workspace, 'listModels', {}).then(
        (r) => r.models.slice(0, 200),
        () => [],
      );
      models = Promise.race([listed, new Promise<string[]>((done) => setTimeout(() => done([]), 5_000).unref())]);
      modelLists.set(workspace, models);
    }
    const settings = await call(workspace, 'getSettings', {});
    return configOptions({ providerModel: settings.provider?.model ?? null, model: session.model, effort: session.effort, models: await models });
  };

  /** A session becomes live on this connection: its events are translated from now on; commands, modes and selectors are sent. */
  const attach = async (workspace: Workspace, summary: SessionSummary, updates: SessionUpdates, replayed: readonly SessionEvent[] = []) => {
    const sessionId = summary.id;
    listen(workspace);
    workspace.core.show(`acp:${sessionId}`, sessionId);
    workspace.activeSession ??= sessionId;
    // Loaded again while live (an editor reopening its panel): the same session, its prompt and requests still out.
    const previous = sessions.get(sessionId);
    const session: LiveSession =
      previous?.workspace === workspace ? previous : { id: sessionId, workspace, cwd: workspace.path, updates, prompting: false, asking: new Map() };
    Object.assign(session, { updates, model: summary.model, effort: summary.effort });
    sessions.set(sessionId, session);
    const { mode } = await call(workspace, 'getPermissions', { sessionId });
    const plan = updates.mode === 'plan';
    updates.setModes(mode, plan);
    const commands = await availableCommands(workspace).catch(() => []);
    // After the response: a client learns of the session from it.
    setTimeout(() => {
      send(sessionId, { sessionUpdate: 'available_commands_update', availableCommands: commands });
      // A turn waiting on an approval or a question: the editor is asked again (a request still out is withdrawn).
      if (summary.running && sessions.get(sessionId) === session) asking.askAgain(session, replayed);
    }, 0);
    return { modes: modeState(mode, plan), configOptions: await sessionConfig(session) };
  };

  const prompt = async (session: LiveSession, blocks: readonly ContentBlock[]): Promise<PromptResponse> => {
    const { workspace, id: sessionId } = session;
    let parts;
    try {
      parts = promptParts(blocks);
    } catch (error) {
      throw RequestError.invalidParams(undefined, (error as Error).message);
    }
    const attachments = [];
    for (const image of parts.images) attachments.push((await call(workspace, 'saveAttachment', { sessionId, ...image })).attachment);
    workspace.activeSession = sessionId;
    const text = parts.text.trim();
    if (!text && !attachments.length) throw RequestError.invalidParams(undefined, 'The prompt is empty.');
    if (text.startsWith('/') && !attachments.length) {
      const compact = /^\/compact(?:\s+([\s\S]*))?$/.exec(text);
      if (compact) {
        await call(workspace, 'compactSession', { sessionId, ...(compact[1]?.trim() ? { instructions: compact[1].trim() } : {}) });
        await workspace.core.turnDone(sessionId);
        return { stopReason: 'end_turn' };
      }
      const { skills } = await call(workspace, 'listSkills', {});
      const command = parseSlashCommand(text, slashCommands(skills));
      if (command) {
        await call(workspace, 'runSkill', { sessionId, name: command.skill.name, ...(command.args ? { args: command.args } : {}) });
        return outcome(await workspace.core.turnDone(sessionId));
      }
    }
    await call(workspace, 'sendPrompt', { sessionId, text, ...(attachments.length ? { attachments } : {}) });
    return outcome(await workspace.core.turnDone(sessionId));
  };

  const app = agent({ name: 'deft' })
    .onRequest('initialize', ({ params }) => {
      clientCapabilities = params.clientCapabilities ?? {};
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentInfo: { name: 'deft', title: 'Deft', version: settings.version },
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { list: {}, resume: {}, close: {} },
        },
        authMethods: authMethods(clientCapabilities),
      };
    })
    .onRequest('authenticate', async ({ params }) => {
      await authenticate(settings, clientCapabilities, params.methodId);
      return {};
    })
    .onRequest('session/new', async ({ params }) => {
      await requireProvider(settings);
      const workspace = await openWorkspace(params.cwd);
      await workspace.addMcpServers(params.mcpServers ?? []);
      const { session } = await call(workspace, 'createSession', {});
      const updates = new SessionUpdates(workspace.path);
      return { sessionId: session.id, ...(await attach(workspace, session, updates)) };
    })
    .onRequest('session/load', async ({ params }) => {
      const workspace = await openWorkspace(params.cwd);
      await workspace.addMcpServers(params.mcpServers ?? []);
      const sessionId = params.sessionId;
      const opened = await call(workspace, 'openSession', { sessionId });
      // The whole transcript, oldest first: the tail openSession gives, after every page before it.
      let events = opened.events;
      for (let before = opened.before ?? null; before !== null; ) {
        const page = await call(workspace, 'earlierEvents', { sessionId, beforeSeq: before });
        events = [...page.events, ...events];
        before = page.before;
      }
      const updates = new SessionUpdates(workspace.path);
      const replayed = [...(opened.earlier ?? []), ...events];
      const read = (path: string) => call(workspace, 'readWorkspaceFile', { path }).catch(() => null);
      const wholeFiles = await replayWholeFiles(replayed, workspace.path, read);
      for (const event of replayed) {
        const whole = event.type === 'tool.call.result' ? wholeFiles.get(event.callId) : undefined;
        for (const update of [...updates.translate(event, true), ...(whole ? [whole] : [])])
          await connection!.client.notify('session/update', { sessionId, update });
      }
      return attach(workspace, opened.session, updates, replayed);
    })
    .onRequest('session/resume', async ({ params }) => {
      // As session/load without the replay: the events only bring the translation's state up to date.
      const workspace = await openWorkspace(params.cwd);
      await workspace.addMcpServers(params.mcpServers ?? []);
      const opened = await call(workspace, 'openSession', { sessionId: params.sessionId });
      const updates = new SessionUpdates(workspace.path);
      const replayed = [...(opened.earlier ?? []), ...opened.events];
      for (const event of replayed) updates.translate(event, true);
      return attach(workspace, opened.session, updates, replayed);
    })
    .onRequest('session/close', async ({ params }) => {
      // The session's turn stops, its requests are withdrawn, and it is let go of on this connection.
      const session = live(params.sessionId);
      sessions.delete(session.id);
      for (const controller of session.asking.values()) controller.abort();
      await call(session.workspace, 'cancelTurn', { sessionId: session.id }).catch(() => {});
      session.workspace.core.show(`acp:${session.id}`, null);
      if (session.workspace.activeSession === session.id) session.workspace.activeSession = null;
      return {};
    })
    .onRequest('session/list', async ({ params }) => {
      // Deft keeps sessions by folder: with a cwd, that folder's; without, those of the folders opened on this connection.
      const folders = params.cwd ? [await openWorkspace(params.cwd)] : workspaces.all();
      const lists = await Promise.all(folders.map(async (workspace) => ({ workspace, list: await call(workspace, 'listSessions', {}) })));
      return {
        sessions: lists.flatMap(({ workspace, list }) =>
          list.sessions.map((s) => ({ sessionId: s.id, cwd: workspace.path, title: s.title || null, updatedAt: new Date(s.updatedAt).toISOString() })),
        ),
      };
    })
    .onRequest('session/set_mode', async ({ params }) => {
      const session = live(params.sessionId);
      const mode = parseMode(params.modeId);
      if (!mode) throw RequestError.invalidParams(undefined, `Unknown mode ${JSON.stringify(params.modeId)}: the modes are ask, accept-edits, yolo and plan.`);
      const { workspace, id: sessionId } = session;
      if (mode.plan) await call(workspace, 'setPlanMode', { sessionId, active: true });
      else {
        if (session.updates.mode === 'plan') await call(workspace, 'setPlanMode', { sessionId, active: false });
        await call(workspace, 'setPermissionMode', { sessionId, mode: mode.permission });
      }
      return {};
    })
    .onRequest('session/set_config_option', async ({ params }) => {
      const session = live(params.sessionId);
      const { workspace, id: sessionId } = session;
      const value = 'value' in params ? params.value : undefined;
      if (!offers(await sessionConfig(session), params.configId, value))
        throw RequestError.invalidParams(undefined, `${JSON.stringify(value)} is not a value of the option ${JSON.stringify(params.configId)}.`);
      if (params.configId === MODEL_OPTION) {
        session.model = (await call(workspace, 'setSessionModel', { sessionId, model: value })).session.model;
      } else if (params.configId === EFFORT_OPTION) {
        const effort = value === DEFAULT_EFFORT ? null : value;
        session.effort = (await call(workspace, 'setSessionEffort', { sessionId, effort })).session.effort;
      }
      return { configOptions: await sessionConfig(session) };
    })
    .onRequest('session/prompt', async ({ params }) => {
      const session = live(params.sessionId);
      await requireProvider(settings);
      if (session.prompting) throw RequestError.invalidRequest(undefined, 'A prompt is already running in this session; cancel it or wait for it to end.');
      session.prompting = true;
      try {
        return await prompt(session, params.prompt);
      } finally {
        session.prompting = false;
      }
    })
    .onNotification('session/cancel', async ({ params }) => {
      const session = sessions.get(params.sessionId);
      if (!session) return;
      for (const controller of session.asking.values()) controller.abort();
      await call(session.workspace, 'cancelTurn', { sessionId: session.id }).catch(() => {});
    });

  const openWorkspace = async (cwd: string) => {
    try {
      return await workspaces.open(cwd);
    } catch (error) {
      throw RequestError.invalidParams(undefined, (error as Error).message);
    }
  };

  connection = app.connect(stream);
  // The client went away (or the stream broke): every turn is stopped and every session written before the end.
  const closed = connection.closed.catch(() => {}).then(() => workspaces.closeAll());
  return { connection, closed };
}

const STOP_REASONS: Record<Exclude<StopReason, 'error'>, AcpStopReason> = {
  end_turn: 'end_turn',
  cancelled: 'cancelled',
  max_steps: 'max_turn_requests',
  max_tokens: 'max_tokens',
  filtered: 'refusal',
};

function outcome(turn: { stopReason: StopReason; error?: { message: string } } | null): PromptResponse {
  if (!turn) return { stopReason: 'end_turn' };
  if (turn.stopReason === 'error') throw RequestError.internalError(undefined, turn.error?.message ?? 'The turn failed.');
  return { stopReason: STOP_REASONS[turn.stopReason] };
}
