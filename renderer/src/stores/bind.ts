import type { DeftEvent, SessionEvent } from '#protocol';
import { isSessionEvent } from '#protocol/helpers/bridge';
import { deft, hostView } from '../bridge';
import { type AgentEvent, useAgentLive } from './agents';
import { useElsewhere } from './elsewhere';
import { useMcp } from './mcp';
import { useHooks } from './hooks';
import { usePermissions } from './permissions';
import { usePreferences } from './preferences';
import { useSessions } from './sessions';
import { useSettings } from './settings';
import { type TasksEvent, isTasksEvent, useTasks } from './tasks';
import { useUi } from './ui';

/** What the app does beyond updating stores: fetch again what an event only says has changed. */
export interface BindHooks {
  /** The connection came back after it was lost. */
  onReconnect(): void;
  /** Skills changed on disk (the event carries no catalog). */
  onSkillsChanged(): void;
}

/** Events that only grow text already shown (an answer, its reasoning, a command's output): they may wait a frame or two. */
const GROWS_TEXT = new Set<DeftEvent['type']>(['assistant.delta', 'thinking.delta', 'tool.call.progress']);
const growsText = (event: DeftEvent) => GROWS_TEXT.has(event.type);

/** A frame that took longer than this (ms) after text was applied means the page is behind the stream. */
const FRAME_BUDGET_MS = 24;
/** The longest streamed text waits on a page that is behind (ms): it still moves a few times a second. */
const MAX_TEXT_WAIT_MS = 250;

/**
 * Feed the stores from the bridge — the one place events are routed. Events are queued and applied
 * once per animation frame, so a fast stream re-renders at most once a frame.
 *
 * On a page that cannot keep up (a slow or busy machine: applying a frame's text, rendering and laying
 * it out took longer than a frame), text that only grows waits as long as the last such frame took
 * before it is applied again, so streaming takes at most about half the main thread and frames keep
 * coming in between (scrolling, typing, the spinner). Any other event is applied at the next frame,
 * with everything queued before it, in order.
 */
export function bindStores(hooks: BindHooks): () => void {
  let queue: DeftEvent[] = [];
  let scheduled = false;
  // Text that only grows is applied again no sooner than this (performance.now()).
  let textWaitsUntil = 0;
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    // rAF pauses in hidden tabs; the timeout keeps state current there too.
    const timer = setTimeout(flush, 250);
    requestAnimationFrame(() => {
      clearTimeout(timer);
      if (!scheduled) return;
      if (performance.now() < textWaitsUntil && queue.every(growsText)) {
        scheduled = false;
        schedule();
        return;
      }
      flush();
    });
  };
  /** How long the frame that applied text took, measured at the next frame: a slow one makes the next text wait. */
  const pace = () => {
    const started = performance.now();
    requestAnimationFrame(() => {
      const now = performance.now();
      const spent = now - started;
      textWaitsUntil = spent > FRAME_BUDGET_MS ? now + Math.min(spent, MAX_TEXT_WAIT_MS) : 0;
    });
  };
  const flush = () => {
    scheduled = false;
    const batch = queue;
    queue = [];
    if (batch.some(growsText)) pace();
    const sessionEvents: SessionEvent[] = [];
    const tasksEvents: TasksEvent[] = [];
    const agentEvents: AgentEvent[] = [];
    for (const event of batch) {
      if (isSessionEvent(event)) {
        sessionEvents.push(event);
        if (event.type === 'session.updated') useSessions.getState().upsertSession(event.session);
      } else if (isTasksEvent(event)) {
        tasksEvents.push(event);
      } else if (event.type === 'settings.updated') {
        useSettings.getState().setSettings(event.settings);
      } else if (event.type === 'session.deleted') {
        useSessions.getState().removeSession(event.sessionId);
      } else if (event.type === 'permissions.updated') {
        usePermissions.getState().setRules(event.permissions);
      } else if (event.type === 'mcp.updated') {
        useMcp.getState().setOverview(event.overview);
      } else if (event.type === 'preferences.updated') {
        usePreferences.getState().setPreferences(event.preferences);
      } else if (event.type === 'hooks.updated') {
        useHooks.getState().setOverview(event.overview);
      } else if (event.type === 'workspace.connection') {
        useSettings.getState().setRemote(event.remote);
      } else if (event.type === 'skills.changed') {
        hooks.onSkillsChanged();
      } else if (event.type === 'requests.elsewhere') {
        useElsewhere.getState().set(event.requests, event.total);
      } else if (event.type === 'agent.event') {
        agentEvents.push(event);
      }
    }
    // Session events go to the open session's domains (and what waits in the others), in one pass per batch.
    if (sessionEvents.length) useSessions.getState().apply(sessionEvents);
    if (tasksEvents.length) useTasks.getState().apply(tasksEvents);
    if (agentEvents.length) useAgentLive.getState().apply(useSessions.getState().currentId, agentEvents);
  };
  // The window switched to another core (in place): what the core left sent and was not applied yet is dropped.
  const unview = hostView.subscribe((_view, switched) => {
    if (switched) queue = [];
  });
  const unsubscribe = deft.onEvent((event) => {
    queue.push(event);
    schedule();
  });
  let wasClosed = false;
  const unConnection = deft.onConnection((state) => {
    useUi.getState().setConnection(state);
    if (state === 'closed') wasClosed = true;
    else if (wasClosed) {
      wasClosed = false;
      hooks.onReconnect();
    }
  });
  return () => {
    unview();
    unsubscribe();
    unConnection();
  };
}
