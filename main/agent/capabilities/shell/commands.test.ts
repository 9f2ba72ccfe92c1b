import { readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRecords } from '#infra/tasks/task-record';
import { dispatchCommand } from '../../../host/dispatch';
import { type Harness, callTool, createTasksHarness, settle } from '#test-support/shell-harness';
import { eventually } from '#test-support/processes';

let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

describe('tasks panel commands', () => {
  it('read a task’s full output in slices (the tail by default), ANSI stripped', async () => {
    h = await createTasksHarness();
    const { content } = await callTool(h, 'Bash', { command: 'printf "\\033[1mbold\\033[0m\\n"; seq 1 1000', run_in_background: true, description: 'numbers' });
    const taskId = /task_id: (\S+)/.exec(content)![1]!;
    await eventually(async () => expect((await h.core.handlers.listTasks({ sessionId: h.session.id })).tasks[0]!.status).toBe('completed'));
    const all = await h.core.handlers.readTaskOutput({ sessionId: h.session.id, taskId });
    expect(all.text.startsWith('bold\n1\n2\n')).toBe(true);
    expect(all).toMatchObject({ offset: 0, size: all.end, path: expect.stringMatching(/tasks\/bash-[0-9a-z]{8}\/output\.log$/) });
    const tail = await h.core.handlers.readTaskOutput({ sessionId: h.session.id, taskId, length: 9 });
    expect(tail).toMatchObject({ text: '999\n1000\n', end: all.size });
    const head = await h.core.handlers.readTaskOutput({ sessionId: h.session.id, taskId, offset: 0, length: 15 });
    expect(head.text).toBe('bold\n1\n');
    const listed = (await h.core.handlers.listTasks({ sessionId: h.session.id })).tasks[0]!;
    expect(listed.tail.split('\n')).toHaveLength(12);
    expect(listed.tail.endsWith('999\n1000')).toBe(true);
  });

  it('clear finished tasks off the list for good: a record keeps it, running tasks stay, the model still sees them', async () => {
    h = await createTasksHarness();
    const sessionId = h.session.id;
    const start = async (command: string, description: string) =>
      /task_id: (\S+)/.exec((await callTool(h, 'Bash', { command, run_in_background: true, description })).content)![1]!;
    // The slow one first: the quick one's end starts a turn of its own (the model is told), which a later prompt must not meet.
    const running = await start('sleep 30', 'slow');
    const done = await start('echo done', 'quick');
    await eventually(async () => expect((await h.core.handlers.listTasks({ sessionId })).tasks.find((t) => t.id === done)!.status).toBe('completed'));
    await settle(h);

    expect(await h.core.handlers.clearTasks({ sessionId })).toEqual({ cleared: [done] });
    expect((await h.core.handlers.listTasks({ sessionId })).tasks.map((t) => t.id)).toEqual([running]);
    expect(await h.core.handlers.clearTasks({ sessionId, taskIds: [running, 'bash-00000000'] })).toEqual({ cleared: [] });
    // Kept in the task's record, so a reload (or the session loaded again) lists it no more.
    const file = (await readdir(h.home, { recursive: true })).find((name) => name.endsWith(`${done}.json`))!;
    const { records } = await loadRecords(dirname(dirname(join(h.home, file))));
    expect(records.find((r) => r.id === done)).toMatchObject({ cleared: true, status: 'completed' });
    expect(records.find((r) => r.id === running)?.cleared).toBeUndefined();
    // The model's own list still has it.
    const { content } = await callTool(h, 'TaskList', { active_only: false });
    expect(content).toContain(done);
    await h.core.handlers.stopTask({ sessionId, taskId: running });
  });

  it('answer unknown ids with not_found, and reject malformed input before it reaches the core', async () => {
    h = await createTasksHarness();
    const sessionId = h.session.id;
    await expect(h.core.handlers.stopTask({ sessionId, taskId: 'bash-00000000' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.core.handlers.readTaskOutput({ sessionId, taskId: 'bash-00000000' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.core.handlers.deleteCronJob({ sessionId, jobId: 'deadbeef' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(h.core.handlers.listTasks({ sessionId: '../../etc' })).rejects.toMatchObject({ code: 'invalid_request' });
    const bad = async (name: string, input: unknown) =>
      (await dispatchCommand(h.core.handlers, name, input, () => {})) as { ok: boolean; error?: { code: string; message: string } };
    expect(await bad('readTaskOutput', { sessionId, taskId: '../../x' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request', message: expect.stringMatching(/taskId/) },
    });
    expect(await bad('readTaskOutput', { sessionId, taskId: 'bash-00000000', length: 10 ** 9 })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request' },
    });
    expect(await bad('stopOrBackgroundCommand', { sessionId, callId: 'c', action: 'explode' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_request' },
    });
    expect(await bad('deleteCronJob', { sessionId, jobId: 'nothex!!' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(await bad('clearTasks', { sessionId, taskIds: ['../x'] })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(await bad('listTasks', { sessionId, extra: 1 })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(await bad('listTasks', { sessionId })).toMatchObject({ ok: true, result: { tasks: [], cron: [], commands: [] } });
  });
});
