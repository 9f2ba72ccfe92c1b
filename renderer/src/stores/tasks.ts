import { create } from 'zustand';
import type { AppEvent, CommandActivity, CronJobInfo, TaskInfo } from '#protocol';

export type TasksEvent = Extract<AppEvent, { type: 'task.started' | 'task.output' | 'task.ended' | 'cron.updated' | 'command.activity' }>;

const TASK_EVENTS = new Set<string>(['task.started', 'task.output', 'task.ended', 'cron.updated', 'command.activity']);

export function isTasksEvent(event: { type: string }): event is TasksEvent {
  return TASK_EVENTS.has(event.type);
}

/** The open session's background tasks, scheduled prompts and quiet commands. */
export interface TaskLists {
  /** The session the lists belong to. */
  sessionId: string | null;
  /** Newest first. */
  tasks: TaskInfo[];
  cron: CronJobInfo[];
  /** Foreground commands that went quiet and wait, by tool call id. */
  waiting: Record<string, CommandActivity>;
}

interface TasksState extends TaskLists {
  panelOpen: boolean;
  /** The task whose full output is open in the viewer. */
  viewing: string | null;
  /** Finished tasks the user cleared from the list, as `sessionId:taskId` (the core keeps their logs). */
  cleared: string[];
  load(sessionId: string | null, data: { tasks: TaskInfo[]; cron: CronJobInfo[]; commands: CommandActivity[] }): void;
  apply(events: TasksEvent[]): void;
  upsert(task: TaskInfo): void;
  setPanelOpen(open: boolean): void;
  view(taskId: string | null): void;
  /** Clear the open session's finished tasks (or one of them) from the list. */
  clearFinished(taskId?: string): void;
}

function upsert(list: TaskInfo[], task: TaskInfo): TaskInfo[] {
  const rest = list.filter((t) => t.id !== task.id);
  return [task, ...rest].sort((a, b) => b.startedAt - a.startedAt);
}

/** Apply live task events; events of other sessions are ignored. */
export function applyTasksEvents(state: TaskLists, events: readonly TasksEvent[]): TaskLists {
  let { tasks, cron, waiting } = state;
  for (const event of events) {
    if (event.sessionId !== state.sessionId) continue;
    switch (event.type) {
      case 'task.started':
      case 'task.ended':
        tasks = upsert(tasks, event.task);
        break;
      case 'task.output':
        // Output that arrives after the end does not bring a task back to life.
        tasks = tasks.map((t) => (t.id === event.taskId && t.status === 'running' ? { ...t, tail: event.tail, outputBytes: event.outputBytes } : t));
        break;
      case 'cron.updated':
        cron = event.jobs;
        break;
      case 'command.activity': {
        const { [event.activity.callId]: _gone, ...rest } = waiting;
        waiting = event.activity.waiting ? { ...rest, [event.activity.callId]: event.activity } : rest;
        break;
      }
    }
  }
  return { sessionId: state.sessionId, tasks, cron, waiting };
}

/** Background tasks, scheduled prompts and quiet commands of the open session (fed by listTasks and live events), and the tasks panel. */
export const useTasks = create<TasksState>()((set) => ({
  sessionId: null,
  tasks: [],
  cron: [],
  waiting: {},
  panelOpen: false,
  viewing: null,
  cleared: [],
  load: (sessionId, data) =>
    set({
      sessionId,
      tasks: [...data.tasks].sort((a, b) => b.startedAt - a.startedAt),
      cron: data.cron,
      waiting: Object.fromEntries(data.commands.filter((c) => c.waiting).map((c) => [c.callId, c])),
    }),
  apply: (events) => set((s) => applyTasksEvents(s, events)),
  upsert: (task) => set((s) => ({ tasks: upsert(s.tasks, task) })),
  setPanelOpen: (panelOpen) => set({ panelOpen }),
  view: (viewing) => set({ viewing }),
  clearFinished: (taskId) =>
    set((s) => ({
      cleared: [
        ...s.cleared,
        ...s.tasks.filter((t) => t.status !== 'running' && (taskId === undefined || t.id === taskId)).map((t) => `${s.sessionId}:${t.id}`),
      ],
    })),
}));

/** The tasks the list shows: all but the finished ones the user cleared. */
export const listedTasks = (s: Pick<TasksState, 'tasks' | 'cleared' | 'sessionId'>) => s.tasks.filter((t) => !s.cleared.includes(`${s.sessionId}:${t.id}`));

export const runningCount = (s: Pick<TaskLists, 'tasks'>) => s.tasks.filter((t) => t.status === 'running').length;
