import { DeftError } from '../../../protocol/bridge';
import type { Attachment, SessionSummary } from '../../../protocol';
import { deft } from '../bridge';
import { useSessions } from './sessions';
import { useSettings } from './settings';
import { useUi } from './ui';
import { useWaiting } from './waiting';

/** Commands the UI issues, with failures routed to the banner. Components call these, not the bridge. */
export function report(error: unknown): void {
  const e = DeftError.from(error);
  useUi.getState().showBanner({ message: e.detail, code: e.code });
}

/** The host's session list, and what waits for the user in each session. */
function showSessions(sessions: SessionSummary[]): void {
  useSessions.getState().setSessions(sessions);
  useWaiting.getState().reset(sessions);
}

export async function loadInitial(): Promise<void> {
  try {
    const [workspace, settings, { sessions }] = await Promise.all([deft.getWorkspace(), deft.getSettings(), deft.listSessions()]);
    useSettings.getState().setWorkspace(workspace);
    useSettings.getState().setSettings(settings);
    showSessions(sessions);
    const remembered = localStorage.getItem(`deft-session:${workspace.path}`);
    const target = sessions.find((s) => s.id === remembered) ?? sessions[0];
    if (target) await openSession(target.id);
  } catch (error) {
    report(error);
  }
}

export async function openSession(id: string): Promise<void> {
  const store = useSessions.getState();
  const afterSeq = store.currentId === id ? store.transcript.lastSeq : undefined;
  store.beginOpen(id);
  try {
    const result = await deft.openSession({ sessionId: id, ...(afterSeq ? { afterSeq } : {}) });
    useSessions.getState().finishOpen(id, result.events, result.reset, result.problems);
    useSessions.getState().upsertSession(result.session);
    const workspace = useSettings.getState().workspace;
    if (workspace) localStorage.setItem(`deft-session:${workspace.path}`, id);
  } catch (error) {
    useSessions.getState().finishOpen(id, [], false, []);
    report(error);
  }
}

/** After a reconnect: catch up on the open session from its last seq, and refresh lists. */
export async function resync(): Promise<void> {
  try {
    const [{ sessions }, settings] = await Promise.all([deft.listSessions(), deft.getSettings()]);
    showSessions(sessions);
    useSettings.getState().setSettings(settings);
    const id = useSessions.getState().currentId;
    if (id) await openSession(id);
  } catch (error) {
    report(error);
  }
}

export async function newSession(): Promise<string | null> {
  try {
    const { session } = await deft.createSession();
    useSessions.getState().upsertSession(session);
    await openSession(session.id);
    return session.id;
  } catch (error) {
    report(error);
    return null;
  }
}

let creating: Promise<string | null> | null = null;

/**
 * The open session, or a new one — created once however many actions ask at the same moment (a mode
 * picked in an empty window and a prompt sent right after must land in the same session).
 */
export function ensureSession(): Promise<string | null> {
  const id = useSessions.getState().currentId;
  if (id) return Promise.resolve(id);
  creating ??= newSession().finally(() => (creating = null));
  return creating;
}

export async function deleteSession(id: string): Promise<void> {
  try {
    await deft.deleteSession({ sessionId: id });
    useSessions.getState().removeSession(id);
  } catch (error) {
    report(error);
  }
}

export async function sendPrompt(text: string, attachments: Attachment[] = []): Promise<boolean> {
  const id = await ensureSession();
  if (!id) return false;
  try {
    useUi.getState().showBanner(null);
    await deft.sendPrompt({ sessionId: id, text, ...(attachments.length ? { attachments } : {}) });
    return true;
  } catch (error) {
    report(error);
    return false;
  }
}

export async function cancelTurn(): Promise<void> {
  const id = useSessions.getState().currentId;
  if (!id) return;
  try {
    await deft.cancelTurn({ sessionId: id });
  } catch (error) {
    report(error);
  }
}

export async function pickWorkspace(): Promise<void> {
  try {
    await deft.pickWorkspace();
  } catch (error) {
    report(error);
  }
}
