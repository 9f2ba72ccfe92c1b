import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, appEvents, callTool, createSpyHarness, createTasksHarness } from '#test-support/shell-harness';
import { eventually, processesMatching, uniqueSleep } from '#test-support/processes';

let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

describe('TaskStop', () => {
  it('stops a task that ignores SIGTERM (SIGKILL after the grace), keeps the reason, and shows a task_stop card', async () => {
    h = await createTasksHarness({ killGraceMs: 300 });
    const nap = uniqueSleep();
    const { content } = await callTool(h, 'Bash', { command: `trap '' TERM; sleep ${nap} & wait; wait`, run_in_background: true, description: 'stubborn' });
    const id = /task_id: (\S+)/.exec(content)![1]!;
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toHaveLength(1));
    const { content: out } = await callTool(h, 'TaskStop', { task_id: id, reason: 'no longer needed' });
    expect(out).toMatch(/reason: no longer needed/);
    expect(processesMatching(`sleep ${nap}`)).toEqual([]);
    expect(h.sessionEvents('tool.call.started').at(-1)).toMatchObject({ display: { kind: 'task_stop', taskId: id, taskDescription: 'stubborn' } });
    expect(appEvents(h, 'task.ended').at(-1)).toMatchObject({ task: { id, status: 'killed', reason: 'no longer needed' } });
  });

  it('matches rules by task id', async () => {
    const rules: Array<[string, boolean]> = [];
    h = await createSpyHarness((call) => rules.push([call.execution.approvalRule, call.execution.matchesRule?.('bash-*') ?? false]));
    const { content } = await callTool(h, 'Bash', { command: 'sleep 5', run_in_background: true, description: 'x' });
    const id = /task_id: (\S+)/.exec(content)![1]!;
    await callTool(h, 'TaskOutput', { task_id: id });
    await callTool(h, 'TaskStop', { task_id: id });
    expect(rules.slice(1)).toEqual([
      [`TaskOutput(${id})`, true],
      [`TaskStop(${id})`, true],
    ]);
  });
});
