import type { DeftEvent } from '#protocol';
import { deft } from '../bridge';
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

/** Show a desktop notification: Electron's through its host, the browser's in the web host (once allowed). */
async function notify(title: string, body: string, sessionId: string): Promise<void> {
  if (useSettings.getState().workspace?.host === 'electron') {
    await deft.showNotification({ title, body: body.slice(0, 400), sessionId }).catch(() => undefined);
    return;
  }
  if (browserNotifications() !== 'granted') return;
  const shown = new Notification(title, { body: body.slice(0, 400), tag: `deft-${sessionId}` });
  shown.onclick = () => {
    window.focus();
    shown.close();
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

/** Notify while the window is in the background and notifications are on. Returns the unsubscribe. */
export function watchAttention(): () => void {
  return deft.onEvent((event) => {
    if (looking() || usePreferences.getState().preferences?.notifications === false) return;
    const worth = attentionFor(event);
    if (worth) void notify(worth.title, worth.body, worth.sessionId);
  });
}
