import type { DeftEvent, SessionEvent } from '../../../protocol';
import { isSessionEvent } from '../../../protocol/bridge';
import { deft } from '../bridge';
import { usePermissions } from './permissions';
import { refreshSkills } from '../features/skills/actions';
import { isTasksEvent, useTasks } from '../features/tasks/store';
import { useSessions } from './sessions';
import { useSettings } from './settings';
import { useUi } from './ui';
import { useWaiting } from './waiting';

/**
 * Feed the stores from the bridge. Events are queued and applied once per animation frame, so a fast
 * stream re-renders at most once a frame.
 */
export function bindStores(onReconnect: () => void): () => void {
  let queue: DeftEvent[] = [];
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    const batch = queue;
    queue = [];
    const sessionEvents: SessionEvent[] = [];
    const tasksEvents = batch.filter(isTasksEvent);
    for (const event of batch) {
      if (isSessionEvent(event)) {
        sessionEvents.push(event);
        if (event.type === 'session.updated') useSessions.getState().upsertSession(event.session);
      } else if (event.type === 'settings.updated') {
        useSettings.getState().setSettings(event.settings);
      } else if (event.type === 'session.deleted') {
        useSessions.getState().removeSession(event.sessionId);
      } else if (event.type === 'permissions.updated') {
        usePermissions.getState().setRules(event.permissions);
      } else if (event.type === 'skills.changed') {
        void refreshSkills();
      }
    }
    if (sessionEvents.length) {
      useSessions.getState().apply(sessionEvents);
      useWaiting.getState().apply(sessionEvents);
    }
    if (tasksEvents.length) useTasks.getState().apply(tasksEvents);
  };
  const unsubscribe = deft.onEvent((event) => {
    queue.push(event);
    if (!scheduled) {
      scheduled = true;
      // rAF pauses in hidden tabs; the timeout keeps state current there too.
      const timer = setTimeout(flush, 250);
      requestAnimationFrame(() => {
        clearTimeout(timer);
        if (scheduled) flush();
      });
    }
  });
  let wasClosed = false;
  const unConnection = deft.onConnection((state) => {
    useUi.getState().setConnection(state);
    if (state === 'closed') wasClosed = true;
    else if (wasClosed) {
      wasClosed = false;
      onReconnect();
      void refreshSkills();
    }
  });
  return () => {
    unsubscribe();
    unConnection();
  };
}
