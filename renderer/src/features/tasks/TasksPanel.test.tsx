import { act, fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { TaskInfo } from '#protocol';
import { core } from '../../testing/core';
import { useSessions } from '../../stores/sessions';
import { useTasks } from '../../stores/tasks';
import { TasksPanel } from './TasksPanel';

const task = (id: string, status: TaskInfo['status'], tail = ''): TaskInfo => ({
  id,
  kind: 'bash',
  description: `Task ${id}`,
  command: `run ${id}`,
  cwd: '/w',
  status,
  startedAt: 1_000 + Number(id.slice(-1)),
  ...(status === 'running' ? {} : { endedAt: 5_000, reason: 'exit code 0' }),
  timeoutSec: null,
  outputPath: `/tmp/${id}.log`,
  outputBytes: tail.length,
  tail,
});

function open(tasks: TaskInfo[]) {
  act(() => {
    useSessions.setState({ currentId: 's1' });
    useTasks.setState({ viewing: null });
    useTasks.getState().load('s1', { tasks, cron: [], commands: [] });
    useTasks.getState().setPanelOpen(true);
  });
  render(<TasksPanel />);
  return screen.getByRole('complementary', { name: 'Tasks' });
}

describe('the tasks panel', () => {
  beforeEach(() => act(() => useTasks.getState().setPanelOpen(false)));

  it('clears finished tasks from the list, one or all, and keeps running ones', async () => {
    const panel = open([task('bash_1', 'completed'), task('bash_2', 'failed'), task('bash_3', 'running'), task('bash_4', 'killed')]);
    const rows = () =>
      within(panel)
        .getAllByRole('listitem')
        .map((row) => row.getAttribute('aria-label'));
    expect(rows()).toEqual(['Task Task bash_3', 'Task Task bash_4', 'Task Task bash_2', 'Task Task bash_1']);
    expect(within(panel).queryByRole('button', { name: 'Clear Task bash_3 from the list' })).toBeNull();

    await userEvent.click(within(panel).getByRole('button', { name: 'Clear Task bash_2 from the list' }));
    expect(rows()).toEqual(['Task Task bash_3', 'Task Task bash_4', 'Task Task bash_1']);

    await userEvent.click(within(panel).getByRole('button', { name: 'Clear finished (2)' }));
    expect(rows()).toEqual(['Task Task bash_3']);
    expect(within(panel).queryByRole('button', { name: /Clear finished/ })).toBeNull();
    // The core is told, so the clearing outlives a reload or a switch back to the session.
    expect(core.inputsOf('clearTasks')).toEqual([
      { sessionId: 's1', taskIds: ['bash_2'] },
      { sessionId: 's1', taskIds: ['bash_4', 'bash_1'] },
    ]);
  });

  it("a running task's preview follows its newest output unless the reader scrolled up", () => {
    const panel = open([task('bash_1', 'running', 'line 1\n')]);
    const tail = within(panel).getByLabelText('Latest output');
    let height = 400;
    Object.defineProperty(tail, 'scrollHeight', { get: () => height, configurable: true });
    Object.defineProperty(tail, 'clientHeight', { get: () => 140, configurable: true });
    const output = (text: string) =>
      act(() => useTasks.getState().apply([{ type: 'task.output', sessionId: 's1', taskId: 'bash_1', tail: text, outputBytes: text.length }]));

    output('line 1\nline 2\n');
    expect(tail.scrollTop).toBe(400);
    // Scrolled up to read: new output leaves the view where it is.
    tail.scrollTop = 100;
    fireEvent.scroll(tail);
    height = 500;
    output('line 1\nline 2\nline 3\n');
    expect(tail.scrollTop).toBe(100);
    // Back at the end: it follows again.
    tail.scrollTop = 360;
    fireEvent.scroll(tail);
    height = 600;
    output('line 1\nline 2\nline 3\nline 4\n');
    expect(tail.scrollTop).toBe(600);
  });
});
