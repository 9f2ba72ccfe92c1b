import type { Environment, WorkspacePlace } from '#contract/environment';
import { basename } from 'node:path';
import type { AppEvent, DeftEvent, RemoteConnection } from '#protocol';
import { PAGE_TURNS } from '#protocol/helpers/paging';
import type { CommandHandlers } from '#contract/commands';
import { CommandError } from '#contract/errors';
import type { HostCapabilities } from '#contract/host';
import type { SandboxStatus } from '#contract/sandbox';
import type { SessionStore } from '#infra/sessions/store';
import { releaseSessionWorktree } from '#infra/worktrees/release';
import { machineOf } from '#infra/worktrees/there';
import type { CapabilitySet } from '../capability-set';
import type { ContextKeeper } from '../compaction/context-keeper';
import type { SessionPool } from '../session/pool';
import { resolveMentions } from '../turn/mentions';
import { forkCommand } from './fork-command';
import type { TurnRunner } from '../turn/runner';

export interface SessionCommandsDeps {
  environment: Environment;
  /** Where the workspace is (a remote worktree's session releases its worktree there). */
  place: WorkspacePlace;
  workspace: string;
  home: string;
  host: HostCapabilities;
  /** Let the user pick another folder (the desktop app); absent elsewhere. */
  pickWorkspace?: () => Promise<string | null>;
  sandboxStatus(): Promise<SandboxStatus>;
  /** A remote workspace's connection now (undefined on this machine). */
  remote?: () => RemoteConnection | undefined;
  store: SessionStore;
  pool: SessionPool;
  turns: TurnRunner;
  context: ContextKeeper;
  capabilities: CapabilitySet;
  emit(event: DeftEvent | AppEvent): void;
}

type SessionCommands = Pick<
  CommandHandlers,
  | 'getWorkspace'
  | 'pickWorkspace'
  | 'listSessions'
  | 'createSession'
  | 'openSession'
  | 'earlierEvents'
  | 'deleteSession'
  | 'forkSession'
  | 'sendPrompt'
  | 'cancelTurn'
  | 'retryNow'
  | 'compactSession'
  | 'undoTurns'
  | 'queuePrompt'
  | 'editQueuedPrompt'
  | 'removeQueuedPrompt'
  | 'sendQueuedPrompt'
>;

/** The commands of the sessions themselves: the workspace, the list, opening and deleting one, prompts, stop, /compact, /undo. */
export function sessionCommands(deps: SessionCommandsDeps): SessionCommands {
  const { pool, turns } = deps;
  const { runs } = turns;
  const removeSession = async (sessionId: string) => {
    await pool.settledUnload(sessionId);
    runs.cancel(sessionId);
    await runs.done(sessionId);
    await pool.loaded(sessionId)?.tasks.close();
    const open = pool.loaded(sessionId);
    if (open) await open.handle.hooks.fire({ hook_event_name: 'SessionEnd', reason: 'deleted' });
    const told = await Promise.allSettled(deps.capabilities.capabilities.map(async (f) => f.onSessionDeleted?.(sessionId)));
    const agentWorktrees = told.flatMap((t) => (t.status === 'fulfilled' && t.value ? (t.value.agentWorktrees ?? []) : []));
    pool.forget(sessionId);
    await deps.store.delete(pool.checkedId(sessionId));
    // Every window showing it goes to its empty view on session.deleted: none shows it any more.
    pool.unshow(sessionId);
    deps.emit({ type: 'session.deleted', sessionId });
    return agentWorktrees;
  };
  const deleteSession: CommandHandlers['deleteSession'] = async ({ sessionId }) => {
    const worktree = (await deps.store.readMeta(pool.checkedId(sessionId)))?.worktree;
    const agentWorktrees = await removeSession(sessionId);
    const agents = agentWorktrees.length ? { agentWorktrees } : {};
    // The last session of a worktree takes it along only when nothing would be lost (infra/worktrees/release.ts) —
    // on the machine the worktree is on: this one, or a remote folder's (git there, through its Environment).
    if (!worktree) return { ok: true as const, ...agents };
    const there = deps.place.environment.kind === 'local' ? undefined : () => machineOf(deps.place);
    return { ok: true as const, worktree: await releaseSessionWorktree(deps.home, worktree, there), ...agents };
  };
  return {
    ...forkCommand({ ...deps, remove: removeSession }),
    getWorkspace: async () => ({
      path: deps.workspace,
      name: basename(deps.workspace) || deps.workspace,
      home: deps.home,
      host: deps.host.kind,
      // A remote workspace's sandbox is bubblewrap there, probed over the link (which may be down).
      sandbox: await deps.sandboxStatus().catch(
        (error: unknown): SandboxStatus => ({
          available: false,
          enabled: false,
          reason: `could not check the sandbox on ${deps.environment.label}: ${error instanceof Error ? error.message : String(error)}`,
        }),
      ),
      ...(deps.remote?.() ? { remote: deps.remote()! } : {}),
    }),
    pickWorkspace: async () => {
      if (!deps.pickWorkspace)
        throw new CommandError('unsupported', 'Opening another folder is only available in the desktop app. Start another web host with --workspace.');
      return { path: await deps.pickWorkspace() };
    },
    listSessions: async () => ({ sessions: await pool.list() }),
    createSession: async () => ({ session: (await pool.create()).session.summary() }),
    openSession: async ({ sessionId, afterSeq }) => {
      // A session not loaded yet shows its tail at once where its log allows; it loads meanwhile.
      const first = afterSeq ? null : await pool.firstView(sessionId);
      if (first) {
        const { events, before, earlier, problems } = first.view;
        return { session: first.summary, events, before, earlier, reset: true as const, problems };
      }
      const { session, problems } = await pool.get(sessionId);
      return { session: session.summary(), ...session.eventsAfter(afterSeq), problems };
    },
    earlierEvents: async ({ sessionId, beforeSeq, turns: count }) => (await pool.get(sessionId)).session.eventsBefore(beforeSeq, count ?? PAGE_TURNS),
    deleteSession,
    sendPrompt: async ({ sessionId, text, attachments, mentions }) => {
      if (!text.trim() && !attachments?.length) throw new CommandError('invalid_request', 'The prompt is empty.');
      const open = await pool.get(sessionId);
      if (runs.busy(sessionId)) throw new CommandError('busy', 'A turn is already running in this session. Wait for it or stop it first.');
      const config = await turns.requireProvider();
      const checked = mentions?.length
        ? await resolveMentions(mentions, { environment: deps.environment, workspace: deps.workspace, sessionDir: open.session.dir })
        : [];
      return { turnId: turns.begin(open, config, { text, origin: 'user', attachments: attachments ?? [], ...(checked.length ? { mentions: checked } : {}) }) };
    },
    cancelTurn: async ({ sessionId }) => ({ cancelled: runs.cancel(sessionId) }),
    retryNow: async ({ sessionId }) => ({ retried: runs.busy(sessionId) && (pool.loaded(sessionId)?.retryWait.now() ?? false) }),
    queuePrompt: async ({ sessionId, text, steer }) => {
      const open = await pool.get(sessionId);
      if (runs.busy(sessionId)) return { queueId: open.queue.add(text, steer === true).queueId };
      // Nothing runs (the turn ended as the message was typed): it is a prompt like any other.
      return { turnId: turns.begin(open, await turns.requireProvider(), { text, origin: 'user', attachments: [] }) };
    },
    editQueuedPrompt: async ({ sessionId, queueId, text, steer }) => {
      (await pool.get(sessionId)).queue.edit(queueId, { ...(text !== undefined ? { text } : {}), ...(steer ? { steer } : {}) });
      return { ok: true as const };
    },
    removeQueuedPrompt: async ({ sessionId, queueId }) => {
      (await pool.get(sessionId)).queue.remove(queueId);
      return { ok: true as const };
    },
    sendQueuedPrompt: async ({ sessionId, queueId }) => {
      const open = await pool.get(sessionId);
      if (runs.busy(sessionId)) {
        open.queue.edit(queueId, { steer: true });
        return {};
      }
      await turns.requireProvider();
      const turnId = await turns.sendQueued(open, queueId);
      return turnId ? { turnId } : {};
    },
    compactSession: async ({ sessionId, instructions }) => {
      const open = await pool.get(sessionId);
      if (runs.busy(sessionId)) throw new CommandError('busy', 'A turn is running in this session. Wait for it to end or stop it, then compact.');
      await open.session.loadContext();
      if (!open.session.context.length) throw new CommandError('invalid_request', 'There is nothing to compact yet: the conversation is empty.');
      const config = await turns.requireProvider();
      return { compactionId: turns.compact(open, config, instructions) };
    },
    undoTurns: async ({ sessionId, count }) => {
      const { session, handle } = await pool.get(sessionId);
      if (runs.busy(sessionId)) throw new CommandError('busy', 'Undo is not possible while a turn runs. Stop it first (Esc), then undo.');
      return { turnIds: await deps.context.undo(session, handle, count) };
    },
  };
}
