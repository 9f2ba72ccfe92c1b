import { describe, expect, it } from 'vitest';
import type { TaskInfo } from '../../../../protocol';
import { formatNextFire } from './format';
import { isTasksEvent, runningCount, useTasks } from './store';

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

  it('says when a scheduled prompt fires next', () => {
    const now = new Date('2026-03-02T08:00:00').getTime();
    expect(formatNextFire(now + 4 * 60_000, now)).toMatch(/^in 4 min \(/);
    expect(formatNextFire(now + 3 * 3_600_000, now)).toMatch(/^in 3 h \(/);
    expect(formatNextFire(now + 10 * 86_400_000, now)).toMatch(/^in 10 days \(/);
    expect(formatNextFire(now - 1, now)).toBe('due now (waiting for the session to be idle)');
    expect(formatNextFire(null, now)).toBe('never again');
  });
});
