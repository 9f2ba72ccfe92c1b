import { describe, expect, it } from 'vitest';
import type { CronJobInfo, TaskInfo } from '#protocol';
import { type TaskLists, applyTasksEvents, isTasksEvent, runningCount, useTasks } from './tasks';

const task = (id: string, startedAt: number, status: TaskInfo['status'] = 'running'): TaskInfo => ({
  id,
  kind: 'bash',
  description: id,
  command: 'sleep 1',
  cwd: '/w',
  status,
  startedAt,
  timeoutSec: 600,
  outputPath: `/s/tasks/${id}/output.log`,
  outputBytes: 0,
  tail: '',
});

describe('tasks store', () => {
  it('follows the open session only, newest task first, with live tails and quiet commands', () => {
    const store = useTasks.getState();
    store.load('s1', { tasks: [task('bash-aaaaaaaa', 1)], cron: [], commands: [{ callId: 'c0', taskId: 'bash-x', waiting: true, quietSince: 5 }] });
    expect(useTasks.getState().waiting).toHaveProperty('c0');
    store.apply([
      { type: 'task.started', sessionId: 's1', task: task('bash-bbbbbbbb', 2) },
      { type: 'task.started', sessionId: 'other', task: task('bash-cccccccc', 3) },
      { type: 'task.output', sessionId: 's1', taskId: 'bash-aaaaaaaa', tail: 'hello', outputBytes: 6 },
      { type: 'command.activity', sessionId: 's1', activity: { callId: 'c1', taskId: 'bash-y', waiting: true, quietSince: 10 } },
      { type: 'command.activity', sessionId: 's1', activity: { callId: 'c0', taskId: 'bash-x', waiting: false, quietSince: 5 } },
    ]);
    let state = useTasks.getState();
    expect(state.tasks.map((t) => t.id)).toEqual(['bash-bbbbbbbb', 'bash-aaaaaaaa']);
    expect(state.tasks[1]).toMatchObject({ tail: 'hello', outputBytes: 6 });
    expect(Object.keys(state.waiting)).toEqual(['c1']);
    expect(runningCount(state)).toBe(2);
    store.apply([{ type: 'task.ended', sessionId: 's1', task: task('bash-aaaaaaaa', 1, 'completed') }]);
    state = useTasks.getState();
    expect(runningCount(state)).toBe(1);
    // Output that arrives after the end does not bring a task back to life.
    store.apply([{ type: 'task.output', sessionId: 's1', taskId: 'bash-aaaaaaaa', tail: 'late', outputBytes: 9 }]);
    expect(useTasks.getState().tasks[1]).toMatchObject({ status: 'completed', tail: '' });
    expect(isTasksEvent({ type: 'cron.updated' })).toBe(true);
    expect(isTasksEvent({ type: 'turn.started' })).toBe(false);
  });

  it('keeps scheduled prompts as the latest list, and returns what it was given for other sessions', () => {
    const lists: TaskLists = { sessionId: 's1', tasks: [task('bash-aaaaaaaa', 1)], cron: [], waiting: {} };
    const job: CronJobInfo = { id: 'cron-1', cron: '0 9 * * *', humanSchedule: 'at 09:00', prompt: 'Check CI', recurring: true, createdAt: 0, nextFireAt: 5 };
    const next = applyTasksEvents(lists, [{ type: 'cron.updated', sessionId: 's1', jobs: [job] }]);
    expect(next.cron).toEqual([job]);
    const other = applyTasksEvents(lists, [{ type: 'task.started', sessionId: 's2', task: task('bash-bbbbbbbb', 2) }]);
    expect(other).toEqual(lists);
    expect(other.tasks).toBe(lists.tasks);
  });
});
