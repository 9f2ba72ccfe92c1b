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
  load(sessionId: string | null, data: { tasks: TaskInfo[]; cron: CronJobInfo[]; commands: CommandActivity[] }): void;
  apply(events: TasksEvent[]): void;
  upsert(task: TaskInfo): void;
  setPanelOpen(open: boolean): void;
  view(taskId: string | null): void;
  /** Take the open session's finished tasks (or one of them) off the list; the ids taken (the core is told by the action). */
  clearFinished(taskId?: string): string[];
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
export const useTasks = create<TasksState>()((set, get) => ({
  sessionId: null,
  tasks: [],
  cron: [],
  waiting: {},
  panelOpen: false,
  viewing: null,
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
  clearFinished: (taskId) => {
    const ids = get()
      .tasks.filter((t) => t.status !== 'running' && (taskId === undefined || t.id === taskId))
      .map((t) => t.id);
    set((s) => ({ tasks: s.tasks.filter((t) => !ids.includes(t.id)) }));
    return ids;
  },
}));

export const runningCount = (s: Pick<TaskLists, 'tasks'>) => s.tasks.filter((t) => t.status === 'running').length;
