import type { Attachment, EffortSetting, ExportFormat, Mention, ReleasedWorktree, SessionSearchHit, SessionSummary } from '#protocol';
import { DeftError } from '#protocol/helpers/bridge';
import { deft } from '../bridge';
import { useApprovals } from '../stores/approvals';
import { useSessions } from '../stores/sessions';
import { useSettings } from '../stores/settings';
import { prependEarlierPage } from '../stores/transcript';
import { useUi } from '../stores/ui';
import { useWorktrees } from '../stores/worktrees';
import { attempt } from './attempt';
import { refreshWorktrees } from './worktrees';

// Commands the UI issues, with failures shown in the banner. Components call these, not the bridge.

/** The host's session list, and what waits for the user in each session. */
function showSessions(sessions: SessionSummary[]): void {
  useSessions.getState().setSessions(sessions);
  useApprovals.getState().listed(sessions, useSessions.getState().currentId);
}

/** The window's first load (or the first after switching to another core): `prefer`, a session to open if listed. */
export function loadInitial(prefer?: string | null): Promise<void> {
  return attempt(async () => {
    const [workspace, settings, { sessions }] = await Promise.all([deft.getWorkspace(), deft.getSettings(), deft.listSessions()]);
    useSettings.getState().setWorkspace(workspace);
    useSettings.getState().setSettings(settings);
    showSessions(sessions);
    void refreshWorktrees();
    const remembered = localStorage.getItem(`deft-session:${workspace.path}`);
    const target = sessions.find((s) => s.id === prefer) ?? sessions.find((s) => s.id === remembered) ?? sessions[0];
    if (target) await openSession(target.id);
  });
}

export async function openSession(id: string): Promise<void> {
  const store = useSessions.getState();
  const afterSeq = store.currentId === id ? store.lastSeq : undefined;
  store.beginOpen(id);
  const opened = await attempt(async () => {
    const result = await deft.openSession({ sessionId: id, ...(afterSeq ? { afterSeq } : {}) });
    useSessions.getState().finishOpen(id, result.events, result.reset, result.problems, result);
    useSessions.getState().upsertSession(result.session);
    const workspace = useSettings.getState().workspace;
    if (workspace) localStorage.setItem(`deft-session:${workspace.path}`, id);
    return true;
  }, false);
  if (!opened) useSessions.getState().finishOpen(id, [], false, []);
}

let earlier: Promise<void> | null = null;

/** Show the page of the open session before what is shown (the user scrolled to the top). One request at a time. */
export function loadEarlier(): Promise<void> {
  const { currentId, before, loading } = useSessions.getState();
  if (!currentId || before === null || loading) return Promise.resolve();
  earlier ??= attempt(async () => {
    const page = await deft.earlierEvents({ sessionId: currentId, beforeSeq: before });
    // A session opened again meanwhile (another session, or a reconnect's replay) has its own cursor.
    if (useSessions.getState().shownEarlier(currentId, before, page.before)) prependEarlierPage(page.events);
  }).finally(() => (earlier = null));
  return earlier;
}

/** After a reconnect: catch up on the open session from its last seq, and refresh lists. */
export function resync(): Promise<void> {
  return attempt(async () => {
    const [{ sessions }, settings] = await Promise.all([deft.listSessions(), deft.getSettings()]);
    showSessions(sessions);
    useSettings.getState().setSettings(settings);
    const id = useSessions.getState().currentId;
    if (id) await openSession(id);
  });
}

let creating: Promise<string | null> | null = null;

/**
 * Start a new session. The window leaves the one it showed at once, so whatever is sent meanwhile (a prompt typed
 * right after the click) waits for the new session instead of landing in the one left.
 */
export function newSession(): Promise<string | null> {
  useSessions.getState().leave();
  const made: Promise<string | null> = attempt(async () => {
    const { session } = await deft.createSession();
    useSessions.getState().upsertSession(session);
    // Another session opened meanwhile (a click in the sidebar) wins: the new one is only listed.
    const shown = useSessions.getState().currentId;
    if (shown) return shown;
    await openSession(session.id);
    return session.id;
  }, null).finally(() => {
    if (creating === made) creating = null;
  });
  creating = made;
  return made;
}

/**
 * The open session, or a new one — created once however many actions ask at the same moment (a mode
 * picked in an empty window and a prompt sent right after must land in the same session).
 */
export function ensureSession(): Promise<string | null> {
  const id = useSessions.getState().currentId;
  if (id) return Promise.resolve(id);
  return creating ?? newSession();
}

/** Run a command on the open session; without one it does nothing and returns `fallback`. */
export function inOpenSession<T>(run: (sessionId: string) => Promise<T>): Promise<T | undefined>;
export function inOpenSession<T, F>(run: (sessionId: string) => Promise<T>, fallback: F): Promise<T | F>;
export function inOpenSession<T, F>(run: (sessionId: string) => Promise<T>, fallback?: F): Promise<T | F | undefined> {
  const sessionId = useSessions.getState().currentId;
  return sessionId ? attempt(() => run(sessionId), fallback) : Promise.resolve(fallback);
}

/** Run a command on the open session, starting one when none is open. */
export function inSession<T>(run: (sessionId: string) => Promise<T>): Promise<T | undefined>;
export function inSession<T, F>(run: (sessionId: string) => Promise<T>, fallback: F): Promise<T | F>;
export async function inSession<T, F>(run: (sessionId: string) => Promise<T>, fallback?: F): Promise<T | F | undefined> {
  const sessionId = await ensureSession();
  return sessionId ? attempt(() => run(sessionId), fallback) : fallback;
}

/**
 * A new session with the open one's conversation up to the end of turn `turnId`, the files kept or restored as they
 * were then; the window switches to it. Resolves to the error's message for the dialog that asked (null: done).
 */
export async function forkSession(turnId: string, files: 'keep' | 'restore'): Promise<string | null> {
  const sessionId = useSessions.getState().currentId;
  if (!sessionId) return 'No session is open.';
  try {
    await forkAndOpen(sessionId, turnId, files);
    return null;
  } catch (error) {
    return DeftError.from(error).detail;
  }
}

/**
 * A new session with the whole conversation of session `id` (up to its last finished turn while one runs), the files
 * as they are; the window switches to it. A failure shows in the banner.
 */
export function forkWholeSession(id: string): Promise<void> {
  return attempt(() => forkAndOpen(id, undefined, 'keep'));
}

async function forkAndOpen(sessionId: string, turnId: string | undefined, files: 'keep' | 'restore'): Promise<void> {
  const { session } = await deft.forkSession({ sessionId, ...(turnId ? { turnId } : {}), files });
  useSessions.getState().upsertSession(session);
  await openSession(session.id);
}

/** What became of a deleted session's sub-agent worktrees: the kept ones by branch and folder (their changes are there). */
export function agentWorktreesNote(released: readonly ReleasedWorktree[]): string | null {
  const kept = released.filter((r) => !r.removed);
  const removed = released.length - kept.length;
  const parts: string[] = [];
  if (kept.length)
    parts.push(
      `Kept ${kept.length === 1 ? 'the worktree' : `${kept.length} worktrees`} of its sub-agents, with their changes: ${kept
        .map((r) => `${r.branch}${r.path ? ` at ${r.path}` : ''}`)
        .join('; ')}. Merge or discard ${kept.length === 1 ? 'it' : 'them'} in Worktrees.`,
    );
  if (removed) parts.push(`Removed ${removed === 1 ? 'the worktree' : `${removed} worktrees`} of its sub-agents (nothing to merge).`);
  return parts.length ? parts.join(' ') : null;
}

export function deleteSession(id: string): Promise<void> {
  return attempt(async () => {
    const { worktree, agentWorktrees = [] } = await deft.deleteSession({ sessionId: id });
    useSessions.getState().removeSession(id);
    // A session in a worktree: whether the worktree went with it, or was kept and why; and its sub-agents' worktrees.
    const told = [worktree?.reason, agentWorktreesNote(agentWorktrees)].filter((t): t is string => Boolean(t));
    if (told.length) {
      useWorktrees.getState().tell(told.join(' '));
      void refreshWorktrees();
    }
  });
}

export function sendPrompt(text: string, attachments: Attachment[] = [], mentions: Mention[] = []): Promise<boolean> {
  return inSession(async (sessionId) => {
    useUi.getState().showBanner(null);
    await deft.sendPrompt({ sessionId, text, ...(attachments.length ? { attachments } : {}), ...(mentions.length ? { mentions } : {}) });
    return true;
  }, false);
}

/** Give a session a title; resolves to whether it was saved. */
export function renameSession(id: string, title: string): Promise<boolean> {
  return attempt(async () => {
    const { session } = await deft.renameSession({ sessionId: id, title });
    useSessions.getState().upsertSession(session);
    return true;
  }, false);
}

/** Sessions whose title or text contains the query (null when the search failed: the banner says why). */
export function searchSessions(query: string): Promise<SessionSearchHit[] | null> {
  return attempt(async () => (await deft.searchSessions({ query })).hits, null);
}

/** Save a session as Markdown or as its raw log: the browser's download (a save dialog in the desktop app). */
export function exportSession(id: string, format: ExportFormat): Promise<void> {
  return attempt(async () => {
    const file = await deft.exportSession({ sessionId: id, format });
    const url = URL.createObjectURL(new Blob([file.content], { type: file.mimeType }));
    const link = document.createElement('a');
    link.href = url;
    link.download = file.fileName;
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });
}

/** Use another model for the open session's next turns (null: the provider's). */
export function setSessionModel(model: string | null): Promise<boolean> {
  return inSession(async (sessionId) => {
    const { session } = await deft.setSessionModel({ sessionId, model });
    useSessions.getState().upsertSession(session);
    return true;
  }, false);
}

/** Ask for this reasoning effort in the open session's next turns (null: the settings' default). */
export function setSessionEffort(effort: EffortSetting | null): Promise<boolean> {
  return inSession(async (sessionId) => {
    const { session } = await deft.setSessionEffort({ sessionId, effort });
    useSessions.getState().upsertSession(session);
    return true;
  }, false);
}

export function cancelTurn(): Promise<void> {
  return inOpenSession(async (sessionId) => {
    await deft.cancelTurn({ sessionId });
  });
}

/** End the wait before a failed model call is retried. */
export function retryNow(): Promise<void> {
  return inOpenSession(async (sessionId) => {
    await deft.retryNow({ sessionId });
  });
}

export function pickWorkspace(): Promise<void> {
  return attempt(async () => {
    await deft.pickWorkspace();
  });
}
