import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, callTool, createTasksHarness, settle } from '#test-support/shell-harness';
import { eventually } from '#test-support/processes';

let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

describe('TaskOutput', () => {
  it('never blocks: a running task reports its output so far', async () => {
    h = await createTasksHarness();
    const { content } = await callTool(h, 'Bash', { command: 'echo first line; sleep 30', run_in_background: true, description: 'server' });
    const id = /task_id: (\S+)/.exec(content)![1]!;
    await eventually(async () => expect((await h.core.handlers.readTaskOutput({ sessionId: h.session.id, taskId: id })).text).toBe('first line\n'));
    const { content: out, result } = await callTool(h, 'TaskOutput', { task_id: id });
    expect(out).toMatch(new RegExp(`^retrieval_status: not_ready\\ntask_id: ${id}\\nstatus: running\\n`));
    expect(out).toContain('note: The task is still running; this is its output so far.');
    expect(out.endsWith('output:\nfirst line\n')).toBe(true);
    expect(result.durationMs).toBeLessThan(5_000);
  });

  it('shows the last 32 KiB of a long log with a banner and the path to Read', async () => {
    h = await createTasksHarness();
    const { content } = await callTool(h, 'Bash', { command: 'seq 1 50000', run_in_background: true, description: 'numbers' });
    const id = /task_id: (\S+)/.exec(content)![1]!;
    await eventually(async () => expect((await h.core.handlers.listTasks({ sessionId: h.session.id })).tasks[0]!.status).toBe('completed'), 15_000);
    // The finished task's notification reaches the model once: inside the running turn when the task ended
    // before that turn's last step, else in a turn of its own once it is idle. Let that happen first, or a
    // notification turn takes the model replies scripted for the TaskOutput call below.
    const notified = () =>
      h.server.requests.some((r) => r.body.messages.some((m) => m.role === 'user' && JSON.stringify(m.content).includes('task.completed')));
    await eventually(() => expect(notified()).toBe(true), 15_000);
    await settle(h);
    const { content: out } = await callTool(h, 'TaskOutput', { task_id: id });
    expect(out).toMatch(/^retrieval_status: success\n/);
    expect(out).toMatch(/\[Showing the last 32 KiB of 2\d\d KiB\. Read output_path with line_offset and n_lines for the rest\.\]/);
    expect(out).toMatch(/output:\n\d+\n[\s\S]*49999\n50000\n$/);
    expect(out.length).toBeLessThan(40_000);
  }, 45_000);

  it('names the known tasks when the id is wrong', async () => {
    h = await createTasksHarness();
    expect((await callTool(h, 'TaskOutput', { task_id: 'bash-nothere1' })).content).toBe(
      'ERROR: There is no background task "bash-nothere1" in this session. This session has no background tasks. TaskList shows them.',
    );
  });
});
