import type { DeftEvent, ElsewhereRequest } from '#protocol';
import { deft, hostView } from '../bridge';
import { usePreferences } from '../stores/preferences';
import { useSessions } from '../stores/sessions';
import { useSettings } from '../stores/settings';

/** Whether the person is looking at this window right now. */
const looking = () => document.visibilityState === 'visible' && document.hasFocus();

/** The browser's own notifications (web host): allowed by the user for this page, or not. */
export function browserNotifications(): 'granted' | 'denied' | 'default' | 'unsupported' {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

/** Ask the browser for permission (from a click: browsers ignore the request otherwise). */
export async function allowBrowserNotifications(): Promise<'granted' | 'denied' | 'default' | 'unsupported'> {
  if (typeof Notification === 'undefined') return 'unsupported';
  return Notification.requestPermission();
}

/** Show a desktop notification: Electron's through its host, the browser's in the web host (once allowed); `onClick`: where a click leads. */
async function notify(title: string, body: string, sessionId: string, onClick?: () => void): Promise<void> {
  if (useSettings.getState().workspace?.host === 'electron') {
    await deft.showNotification({ title, body: body.slice(0, 400), sessionId }).catch(() => undefined);
    return;
  }
  if (browserNotifications() !== 'granted') return;
  const shown = new Notification(title, { body: body.slice(0, 400), tag: `deft-${sessionId}` });
  shown.onclick = () => {
    window.focus();
    shown.close();
    onClick?.();
  };
}

function titleOf(sessionId: string): string {
  return useSessions.getState().sessions.find((s) => s.id === sessionId)?.title ?? 'a session';
}

/** What is worth a notification when the window is in the background: a turn that ended, a question or an approval waiting. */
export function attentionFor(event: DeftEvent): { title: string; body: string; sessionId: string } | null {
  switch (event.type) {
    case 'turn.ended':
      if (event.stopReason === 'cancelled') return null;
      return event.error
        ? { title: 'Deft stopped with an error', body: `${titleOf(event.sessionId)}: ${event.error.message}`, sessionId: event.sessionId }
        : { title: 'Deft finished', body: titleOf(event.sessionId), sessionId: event.sessionId };
    case 'approval.requested':
      return {
        title: event.kind === 'plan_review' ? 'A plan waits for your review' : 'Deft waits for your approval',
        body: `${event.toolName}: ${event.description}`,
        sessionId: event.sessionId,
      };
    case 'question.asked':
      return { title: 'Deft has a question', body: event.questions[0]?.question ?? titleOf(event.sessionId), sessionId: event.sessionId };
    default:
      return null;
  }
}

/** A request waiting in another core (a worktree's, or the main checkout's), as a notification says it. */
export function attentionElsewhere(request: ElsewhereRequest): { title: string; body: string } {
  const where = request.worktree ? request.worktree.branch : 'the main checkout';
  const what =
    request.kind === 'approval'
      ? 'Deft waits for your approval'
      : request.kind === 'plan'
        ? 'A plan waits for your review'
        : request.kind === 'question'
          ? 'Deft has a question'
          : 'A change waits for your review';
  return { title: `${what} in ${where}`, body: `${request.title}: ${request.summary}` };
}

/**
 * Notify while the window is in the background and notifications are on (Settings → Notifications). A request that
 * waits in ANOTHER core (`requests.elsewhere`: a worktree's while this window shows the main checkout, or the other
 * way round) is notified even while you look at the window — this view does not show it — once, when it appears; a
 * click switches there. What already waited when the page (or a switch) started is shown by the sidebar's badges only.
 * `go`: switch to a request's core and open its session. Returns the unsubscribe.
 */
export function watchAttention(go: (request: ElsewhereRequest) => void): () => void {
  const seen = new Set<string>();
  let primed = false;
  const unview = hostView.subscribe((_view, switched) => {
    if (switched) primed = false;
  });
  const unevent = deft.onEvent((event) => {
    if (event.type === 'requests.elsewhere') {
      const fresh = event.requests.filter((r) => !seen.has(`${r.worktree?.name ?? ''}/${r.requestId}`));
      for (const r of event.requests) seen.add(`${r.worktree?.name ?? ''}/${r.requestId}`);
      const wasPrimed = primed;
      primed = true;
      if (!wasPrimed || usePreferences.getState().preferences?.notifications === false) return;
      for (const request of fresh.slice(0, 3)) {
        const { title, body } = attentionElsewhere(request);
        void notify(title, body, request.sessionId, () => go(request));
      }
      return;
    }
    if (looking() || usePreferences.getState().preferences?.notifications === false) return;
    const worth = attentionFor(event);
    if (worth) void notify(worth.title, worth.body, worth.sessionId);
  });
  return () => {
    unview();
    unevent();
  };
}
