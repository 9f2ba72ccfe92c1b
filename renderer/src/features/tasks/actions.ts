import { useEffect } from 'react';
import { DeftError } from '../../../../protocol/bridge';
import { deft } from '../../bridge';
import { useSessions } from '../../stores/sessions';
import { useUi } from '../../stores/ui';
import { useTasks } from './store';

function report(error: unknown): void {
  const e = DeftError.from(error);
  useUi.getState().showBanner({ message: e.detail, code: e.code });
}

const current = () => useSessions.getState().currentId;

/** Load the open session's tasks, schedules and quiet commands. */
export async function refreshTasks(sessionId = current()): Promise<void> {
  if (!sessionId) return;
  try {
    const data = await deft.listTasks({ sessionId });
    if (current() === sessionId) useTasks.getState().load(sessionId, data);
  } catch (error) {
    report(error);
  }
}

export async function stopTask(taskId: string): Promise<void> {
  const sessionId = current();
  if (!sessionId) return;
  try {
    const { task } = await deft.stopTask({ sessionId, taskId });
    useTasks.getState().upsert(task);
  } catch (error) {
    report(error);
  }
}

export async function deleteCronJob(jobId: string): Promise<void> {
  const sessionId = current();
  if (!sessionId) return;
  try {
    await deft.deleteCronJob({ sessionId, jobId });
  } catch (error) {
    report(error);
  }
}

/** Stop a running tool call's command, or send it to the background. */
export async function controlCommand(callId: string, action: 'stop' | 'background'): Promise<void> {
  const sessionId = current();
  if (!sessionId) return;
  try {
    await deft.stopOrBackgroundCommand({ sessionId, callId, action });
  } catch (error) {
    report(error);
  }
}

/** A slice of a task's log: the last MiB, or `length` bytes from `offset`. */
export async function readTaskOutput(taskId: string, offset?: number, length?: number) {
  const sessionId = current();
  if (!sessionId) return null;
  try {
    return await deft.readTaskOutput({ sessionId, taskId, ...(offset !== undefined ? { offset } : {}), ...(length !== undefined ? { length } : {}) });
  } catch (error) {
    report(error);
    return null;
  }
}

/** Keep the tasks store on the open session: reload when the session changes or the connection comes back. */
export function useTasksSync(): void {
  const sessionId = useSessions((s) => s.currentId);
  const connection = useUi((s) => s.connection);
  useEffect(() => {
    if (!sessionId) {
      useTasks.getState().load(null, { tasks: [], cron: [], commands: [] });
      return;
    }
    if (connection === 'closed') return;
    useTasks.getState().load(sessionId, { tasks: [], cron: [], commands: [] });
    void refreshTasks(sessionId);
  }, [sessionId, connection]);
}
