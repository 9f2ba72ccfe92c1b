import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Capability, SessionHandle } from '#contract/capability';
import type { RunningTask, TaskEnd, TaskRecord } from '#contract/tasks';
import { shellCapability } from '../../capabilities/shell/capability';
import { appEvents, callTool, lastRequestText, settle } from '#test-support/shell-harness';
import { createHarness } from '#test-support/harness';
import { eventually } from '#test-support/processes';
import { DeftCore } from '../core';
import { cliHost } from '../../../host/hosts';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness;
const extra: DeftCore[] = [];
afterEach(async () => {
  await Promise.all(extra.splice(0).map((c) => c.close()));
  await h?.dispose();
});

/** A stand-in for a later capability's `agent` tasks: it runs until told to finish or stop. */
function agentTasks() {
  let handle: SessionHandle | undefined;
  const stops: string[] = [];
  const lost: TaskRecord[] = [];
  const capability: Capability = {
    name: 'agents',
    taskKinds: [{ kind: 'agent', onLost: async (record) => void lost.push(record) }],
    onSessionLoaded: (session) => void (handle = session),
  };
  async function start(description: string) {
    const tasks = handle!.tasks;
    const id = tasks.newId('agent');
    const outputPath = tasks.outputPath(id);
    await mkdir(dirname(outputPath), { recursive: true });
    await writeFile(outputPath, 'reading the code\nfound the bug\n');
    let finish!: (end: TaskEnd) => void;
    const done = new Promise<TaskEnd>((resolve) => (finish = resolve));
    const running: RunningTask = {
      outputBytes: 31,
      tail: () => 'found the bug',
      onOutput: () => () => {},
      stop: async (why) => {
        stops.push(`${id}:${why}`);
        finish({ status: 'killed', reason: 'stopped', endedAt: Date.now(), outputBytes: 31, tail: 'found the bug', shutdown: why === 'shutdown' });
      },
      done,
    };
    const record = tasks.start(
      { id, kind: 'agent', description, command: 'fix the failing test', cwd: handle!.dir, startedAt: Date.now(), timeoutSec: null, outputPath },
      running,
    );
    return { record, finish: (tail: string) => finish({ status: 'completed', reason: 'the agent answered', endedAt: Date.now(), outputBytes: 31, tail }) };
  }
  return { capability, start, stops, lost };
}

describe('task kinds: another capability registers the agent kind, the shell capability’s task tools work on it', () => {
  it('ids follow the kind, TaskList/TaskOutput/TaskStop handle it, and a stop by the model tells nobody', async () => {
    const agents = agentTasks();
    h = await createHarness({ capabilities: [shellCapability({ killGraceMs: 500 }), () => agents.capability] });
    const { record } = await agents.start('find the bug');
    expect(record.id).toMatch(/^agent-[0-9a-z]{8}$/);
    expect(appEvents(h, 'task.started')).toMatchObject([{ task: { id: record.id, kind: 'agent', status: 'running' } }]);

    const list = await callTool(h, 'TaskList', {});
    expect(list.content).toContain(`task_id: ${record.id}`);
    expect(list.content).toContain('description: find the bug');
    const output = await callTool(h, 'TaskOutput', { task_id: record.id });
    expect(output.content).toContain('retrieval_status: not_ready');
    expect(output.content).toContain('found the bug');

    const stop = await callTool(h, 'TaskStop', { task_id: record.id });
    expect(stop.content).toMatch(new RegExp(`^Task ${record.id} stopped`));
    expect(agents.stops).toEqual([`${record.id}:killed`]);
    await settle(h);
    expect(h.sessionEvents('turn.started').filter((e) => 'origin' in e && e.origin === 'task')).toEqual([]);
    // Persisted beside its log: <session>/tasks/<id>.json.
    const saved = JSON.parse(await readFile(join(dirname(dirname(record.outputPath)), `${record.id}.json`), 'utf8'));
    expect(saved).toMatchObject({ id: record.id, kind: 'agent', status: 'killed', notified: true });
  });

  it('an agent task that ends reaches the model exactly once, through the same notification as a shell task', async () => {
    const agents = agentTasks();
    h = await createHarness({ capabilities: [shellCapability(), () => agents.capability] });
    const { record, finish } = await agents.start('review the diff');
    finish('no problems found');
    await eventually(() => expect(h.sessionEvents('turn.started')).toHaveLength(1));
    await settle(h);
    expect(h.sessionEvents('turn.started').at(-1)).toMatchObject({ origin: 'task', text: `Background task ${record.id} completed: review the diff` });
    const text = lastRequestText(h);
    expect(text.split(`source_id="${record.id}"`).length - 1).toBe(1);
    expect(text).toContain('no problems found');
    await h.run('and now?');
    expect(lastRequestText(h).split(`source_id="${record.id}"`).length - 1).toBe(1);
  });

  it('a task of a registered kind that was running when Deft stopped is marked lost and handed to its kind', async () => {
    const agents = agentTasks();
    h = await createHarness({ capabilities: [() => agents.capability] });
    const { record } = await agents.start('long research');
    // A second core on the same session, as after a crash: the first never recorded an end.
    const again = agentTasks();
    const restarted = new DeftCore({ home: h.home, workspace: h.workspace, host: cliHost(), secrets: h.secrets, capabilities: [() => again.capability] });
    extra.push(restarted);
    await restarted.handlers.openSession({ sessionId: h.session.id });
    // The first command that needs the session loads it (a window's first open only reads its tail).
    await restarted.handlers.earlierEvents({ sessionId: h.session.id, beforeSeq: 1 });
    await eventually(() => expect(again.lost.map((r) => r.id)).toEqual([record.id]));
    expect(again.lost[0]).toMatchObject({ kind: 'agent', status: 'lost' });
  });
});
