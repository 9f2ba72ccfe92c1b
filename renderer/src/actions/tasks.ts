import { deft } from '../bridge';
import { useSessions } from '../stores/sessions';
import { useTasks } from '../stores/tasks';
import { report } from './attempt';
import { inOpenSession } from './sessions';

/** Load the session's tasks, schedules and quiet commands (the open session's by default). */
export function refreshTasks(sessionId = useSessions.getState().currentId): Promise<void> {
  if (!sessionId) return Promise.resolve();
  const shown = () => useSessions.getState().currentId === sessionId;
  return deft.listTasks({ sessionId }).then(
    (data) => void (shown() && useTasks.getState().load(sessionId, data)),
    // The window moved on to another session meanwhile: what this one's list said no longer concerns it.
    (error: unknown) => void (shown() && report(error)),
  );
}

export function stopTask(taskId: string): Promise<void> {
  return inOpenSession(async (sessionId) => {
    const { task } = await deft.stopTask({ sessionId, taskId });
    useTasks.getState().upsert(task);
  });
}

/**
 * Clear the open session's finished tasks (or one of them) from the list: at once in the window, and for good in the
 * core, so a reload or a switch back does not bring them back (their logs stay; the model still sees them).
 */
export function clearFinishedTasks(taskId?: string): Promise<void> {
  return inOpenSession(async (sessionId) => {
    const taskIds = useTasks.getState().clearFinished(taskId);
    if (taskIds.length) await deft.clearTasks({ sessionId, taskIds });
  });
}

export function deleteCronJob(jobId: string): Promise<void> {
  return inOpenSession(async (sessionId) => {
    await deft.deleteCronJob({ sessionId, jobId });
  });
}

/** Stop a running tool call's command, or send it to the background. */
export function stopOrBackgroundCommand(callId: string, action: 'stop' | 'background'): Promise<void> {
  return inOpenSession(async (sessionId) => {
    await deft.stopOrBackgroundCommand({ sessionId, callId, action });
  });
}

/** A slice of a task's log: the last MiB, or `length` bytes from `offset`; null when it could not be read. */
export function readTaskOutput(taskId: string, offset?: number, length?: number) {
  return inOpenSession(
    (sessionId) => deft.readTaskOutput({ sessionId, taskId, ...(offset !== undefined ? { offset } : {}), ...(length !== undefined ? { length } : {}) }),
    null,
  );
}
