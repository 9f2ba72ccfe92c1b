import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, callTool, createSpyHarness, createTasksHarness, settle } from '#test-support/shell-harness';
import { eventually } from '#test-support/processes';

let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

describe('TaskList', () => {
  it('lists running tasks by default and all tasks on request, newest first', async () => {
    h = await createTasksHarness();
    expect((await callTool(h, 'TaskList', {})).content).toBe('active_background_tasks: 0\nNo background task is running.');
    const done = await callTool(h, 'Bash', { command: 'echo quick', run_in_background: true, description: 'quick one' });
    const doneId = /task_id: (\S+)/.exec(done.content)![1]!;
    await eventually(async () => expect((await h.core.handlers.listTasks({ sessionId: h.session.id })).tasks[0]!.status).toBe('completed'));
    // The task's notification turn starts on its own once the task has ended (after its checkpoint): wait for it.
    await settle(h);
    const slow = await callTool(h, 'Bash', { command: 'sleep 30', run_in_background: true, description: 'slow one' });
    const slowId = /task_id: (\S+)/.exec(slow.content)![1]!;

    const active = (await callTool(h, 'TaskList', {})).content;
    expect(active).toMatch(
      new RegExp(
        `^active_background_tasks: 1\\n---\\ntask_id: ${slowId}\\nstatus: running\\ndescription: slow one\\ncommand: sleep 30\\ncwd: .+\\nstarted_at: .+\\nrunning_for: .+\\ntime_limit: 600 s\\noutput_path: .+output\\.log\\noutput_size: 0 B$`,
      ),
    );
    const all = (await callTool(h, 'TaskList', { active_only: false })).content;
    expect(all.split('\n---\n').map((r) => /task_id: (\S+)/.exec(r)?.[1])).toEqual([undefined, slowId, doneId]);
    expect(all).toMatch(/status: completed[\s\S]*ended: exit code 0\nexit_code: 0/);
    expect((await callTool(h, 'TaskList', { active_only: false, limit: 1 })).content.split('\n---\n')).toHaveLength(2);
  });

  it('is read-only, with rule subjects active|all', async () => {
    const seen: Array<{ rule: string; readOnly: boolean | undefined; all: boolean; active: boolean }> = [];
    h = await createSpyHarness(({ execution: e }) =>
      seen.push({ rule: e.approvalRule, readOnly: e.readOnly, all: e.matchesRule?.('all') ?? false, active: e.matchesRule?.('act*') ?? false }),
    );
    await callTool(h, 'TaskList', {});
    await callTool(h, 'TaskList', { active_only: false });
    expect(seen).toEqual([
      { rule: 'TaskList(active)', readOnly: true, all: false, active: true },
      { rule: 'TaskList(all)', readOnly: true, all: true, active: false },
    ]);
  });

  it('offers the model the documented schemas (headless: no scheduled prompts, nothing would fire them)', async () => {
    h = await createTasksHarness();
    await h.run('hi');
    const tools = h.server.requests[0]!.body.tools!.map((t) => [
      t.function.name,
      Object.keys((t.function.parameters as { properties: object }).properties).sort(),
    ]);
    expect(tools).toEqual([
      ['Bash', ['command', 'cwd', 'description', 'disable_timeout', 'run_in_background', 'timeout']],
      ['TaskList', ['active_only', 'limit']],
      ['TaskOutput', ['task_id']],
      ['TaskStop', ['reason', 'task_id']],
    ]);
    const bash = h.server.requests[0]!.body.tools![0]!.function.parameters as { required: string[]; additionalProperties: boolean };
    expect(bash.required).toEqual(['command']);
    expect(bash.additionalProperties).toBe(false);
  });
});
