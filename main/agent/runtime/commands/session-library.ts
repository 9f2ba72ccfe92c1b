import { join } from 'node:path';
import type { CommandHandlers } from '#contract/commands';
import { CommandError } from '#contract/errors';
import { diskUsage } from '#infra/sessions/disk-usage';
import { exportSession } from '#infra/sessions/export';
import { searchSessions } from '#infra/sessions/search';
import type { Session } from '#infra/sessions/session';
import type { SessionStore } from '#infra/sessions/store';

export interface SessionLibraryDeps {
  store: SessionStore;
  home: string;
  /** A session, loading it if needed (throws not_found). */
  session: (id: string) => Promise<Session>;
  /** Sessions loaded now (their latest events may not be on disk yet). */
  openSessions: () => Session[];
}

type LibraryCommands = Pick<CommandHandlers, 'renameSession' | 'setSessionModel' | 'setSessionEffort' | 'searchSessions' | 'exportSession' | 'getDataInfo'>;

/** Sessions as a collection: rename, search, export, a model per session, and the disk they use. */
export function sessionLibrary({ store, home, session: load, openSessions }: SessionLibraryDeps): LibraryCommands {
  return {
    renameSession: async ({ sessionId, title }) => {
      const session = await load(sessionId);
      await session.rename(title.replace(/\s+/g, ' '));
      session.emit({ type: 'session.updated', session: session.summary() });
      return { session: session.summary() };
    },
    setSessionModel: async ({ sessionId, model }) => {
      const session = await load(sessionId);
      await session.setModel(model);
      session.emit({ type: 'session.updated', session: session.summary() });
      return { session: session.summary() };
    },
    setSessionEffort: async ({ sessionId, effort }) => {
      const session = await load(sessionId);
      await session.setEffort(effort);
      session.emit({ type: 'session.updated', session: session.summary() });
      return { session: session.summary() };
    },
    searchSessions: async ({ query, limit }) => {
      // What open sessions streamed lately reaches their logs first.
      await Promise.allSettled(openSessions().map((session) => session.flush()));
      const metas = await store.list();
      return { hits: await searchSessions(store.root, metas, query, limit), searched: metas.length };
    },
    exportSession: async ({ sessionId, format }) => {
      const session = await load(sessionId);
      await session.flush();
      const meta = await store.readMeta(sessionId);
      if (!meta) throw new CommandError('not_found', `Session ${sessionId} does not exist in this workspace.`);
      try {
        return await exportSession(session.dir, meta, format);
      } catch (error) {
        throw new CommandError('invalid_request', (error as Error).message);
      }
    },
    getDataInfo: async () => {
      const [workspace, all, metas] = await Promise.all([diskUsage(store.root), diskUsage(join(home, 'sessions')), store.list()]);
      return {
        home,
        sessionsDir: store.root,
        sessionCount: metas.length,
        workspaceBytes: workspace.bytes,
        allSessionsBytes: all.bytes,
        partial: workspace.partial || all.partial,
      };
    },
  };
}
