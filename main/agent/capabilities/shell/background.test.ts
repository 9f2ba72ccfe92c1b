import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DeftCore } from '#runtime/core';
import { type Harness, appEvents, callTool, createTasksHarness, lastRequestText, settle } from '#test-support/shell-harness';
import { eventually, processesMatching, uniqueSleep } from '#test-support/processes';
import { describeSandboxed } from '#test-support/sandbox';
import { DEFAULT_MAX_RUNNING_TASKS, maxRunningTasks } from '#infra/tasks/limits';
import { shellCapability } from './capability';
import { reminders } from '#test-support/mock-steps';
import { cliHost } from '../../../host/hosts';

let h: Harness;
const extraCores: DeftCore[] = [];
afterEach(async () => {
  await Promise.all(extraCores.splice(0).map((c) => c.close()));
  await h?.dispose();
});

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe('background tasks notify the model exactly once', () => {
  it('an idle agent gets a turn of its own when a task ends', async () => {
    h = await createTasksHarness();
    // The task ends when the test says so: after the turn that started it has ended (the agent is idle).
    const { content } = await callTool(h, 'Bash', {
      command: 'until [ -e go ]; do sleep 0.05; done; echo all tests passed',
      run_in_background: true,
      description: 'run the tests',
    });
    expect(content).toMatch(/^Started in the background\.\ntask_id: bash-[0-9a-z]{8}\npid: \d+\ndescription: run the tests\nstatus: running\n/);
    expect(content).toContain('automatic_notification: true');
    const id = /task_id: (\S+)/.exec(content)![1]!;
    await writeFile(join(h.workspace, 'go'), '');
    await eventually(() => expect(h.sessionEvents('turn.started')).toHaveLength(2));
    await settle(h);
    const started = h.sessionEvents('turn.started').at(-1)!;
    expect(started).toMatchObject({ origin: 'task', text: `Background task ${id} completed: run the tests` });
    const text = lastRequestText(h);
    expect(count(text, `source_id="${id}"`)).toBe(1);
    expect(text).toMatch(new RegExp(`Background task ${id} completed \\(exit code 0\\) after [\\d.]+ m?s\\.`));
    expect(text).toContain('Last lines of output:\nall tests passed');
    expect(appEvents(h, 'task.ended')).toMatchObject([{ task: { id, status: 'completed', exitCode: 0, tail: 'all tests passed' } }]);
    // Later turns carry it in their history once, and no further notification comes.
    await h.run('anything else?');
    expect(count(lastRequestText(h), `source_id="${id}"`)).toBe(1);
    expect(h.sessionEvents('turn.started').filter((e) => 'origin' in e && e.origin === 'task')).toHaveLength(1);
  });

  it('a running turn reads it at the next step boundary (no extra turn)', async () => {
    h = await createTasksHarness();
    h.server.enqueue(
      // The background job ends while the next step's command runs (that command lets it go), however slow the machine.
      {
        chunks: [
          {
            toolCall: {
              id: 'a',
              name: 'Bash',
              args: JSON.stringify({ command: 'until [ -e go ]; do sleep 0.05; done; echo bg done', run_in_background: true, description: 'quick job' }),
            },
          },
          { finish: 'tool_calls' },
        ],
      },
      { chunks: [{ toolCall: { id: 'b', name: 'Bash', args: JSON.stringify({ command: 'touch go; sleep 1' }) } }, { finish: 'tool_calls' }] },
      { chunks: [{ text: 'final' }, { finish: 'stop' }] },
    );
    await h.run('go');
    await settle(h);
    expect(h.sessionEvents('turn.started')).toHaveLength(1);
    const third = h.server.requests[2]!.body.messages;
    expect(third.at(-2)).toMatchObject({ role: 'tool', tool_call_id: 'b' });
    expect(third.at(-1)).toMatchObject({ role: 'user', content: expect.stringMatching(/^<notification category="task" type="task.completed"[\s\S]*bg done/) });
    expect(h.server.requests).toHaveLength(3);
  });

  it('a notification that arrives during the last step wakes the agent once the turn ends', async () => {
    h = await createTasksHarness();
    h.server.enqueue(
      {
        chunks: [
          { toolCall: { id: 'a', name: 'Bash', args: JSON.stringify({ command: 'sleep 0.2; echo woke', run_in_background: true, description: 'short job' }) } },
          { finish: 'tool_calls' },
        ],
      },
      { chunks: [{ text: 'I will wait for the notification.' }, { text: ' Done.' }, { finish: 'stop' }], delayMs: 300 },
    );
    await h.run('go');
    await eventually(() => expect(h.sessionEvents('turn.started')).toHaveLength(2));
    await settle(h);
    expect(h.sessionEvents('turn.started').at(-1)).toMatchObject({ origin: 'task', text: 'Background work finished' });
    const text = lastRequestText(h);
    expect(count(text, 'source_kind="background_task"')).toBe(1);
    expect(text).toContain('woke');
    expect(h.sessionEvents('turn.started')).toHaveLength(2);
  });

  it('TaskStop stops the whole tree, leaves no process, and suppresses the notification', async () => {
    h = await createTasksHarness();
    const nap = uniqueSleep();
    const { content } = await callTool(h, 'Bash', { command: `sleep ${nap} & wait`, run_in_background: true, description: 'sleeper' });
    const id = /task_id: (\S+)/.exec(content)![1]!;
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toHaveLength(1));
    // Bash's result told the model the task runs: no reminder repeats it, and the system prompt never lists tasks.
    const told = () => h.server.requests.flatMap((r) => reminders(r.body.messages)).filter((r) => r.includes('Background tasks running now'));
    expect(told()).toEqual([]);
    const stop = await callTool(h, 'TaskStop', { task_id: id });
    expect(told()).toEqual([]);
    expect(new Set(h.server.requests.map((r) => JSON.stringify(r.body.messages[0])))).toHaveProperty('size', 1);
    expect(stop.content).toMatch(new RegExp(`^Task ${id} stopped: its process tree was terminated after .*\\nstatus: killed\\nreason: Stopped by TaskStop`));
    expect(processesMatching(`sleep ${nap}`)).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    await settle(h);
    expect(h.sessionEvents('turn.started').filter((e) => 'origin' in e && e.origin === 'task')).toEqual([]);
    expect(count(lastRequestText(h), '<notification')).toBe(0);
    const again = await callTool(h, 'TaskStop', { task_id: id });
    expect(again.content).toMatch(/is not running: it ended as killed \(Stopped by TaskStop\)/);
  });

  it('a background task that reaches its time limit is stopped and reported as timed_out', async () => {
    h = await createTasksHarness();
    const nap = uniqueSleep();
    const { content } = await callTool(h, 'Bash', { command: `echo begin; sleep ${nap}`, run_in_background: true, description: 'slow', timeout: 1 });
    const id = /task_id: (\S+)/.exec(content)![1]!;
    await eventually(() => expect(h.sessionEvents('turn.started')).toHaveLength(2), 6_000);
    await settle(h);
    expect(processesMatching(`sleep ${nap}`)).toEqual([]);
    expect(lastRequestText(h)).toMatch(new RegExp(`Background task ${id} ended: timed_out \\(stopped at its time limit\\)`));
  });

  it('the user stopping a task from the panel tells the model at its next turn, without waking it', async () => {
    h = await createTasksHarness();
    const { content } = await callTool(h, 'Bash', { command: 'sleep 30', run_in_background: true, description: 'server' });
    const id = /task_id: (\S+)/.exec(content)![1]!;
    const { task } = await h.core.handlers.stopTask({ sessionId: h.session.id, taskId: id });
    expect(task).toMatchObject({ id, status: 'killed', reason: 'stopped by the user' });
    await new Promise((r) => setTimeout(r, 200));
    expect(h.sessionEvents('turn.started')).toHaveLength(1);
    await h.run('next');
    expect(count(lastRequestText(h), `source_id="${id}"`)).toBe(1);
    expect(lastRequestText(h)).toContain('stopped by the user');
  });
});

describe('background tasks and the session lifecycle', () => {
  it('quitting the app kills running tasks and what finished commands left behind (no OS sandbox)', async () => {
    h = await createTasksHarness({}, { sandbox: 'off' });
    const nap = uniqueSleep();
    await callTool(h, 'Bash', { command: `sleep ${nap} & wait`, run_in_background: true, description: 'bg' });
    await callTool(h, 'Bash', { command: `nohup sleep ${nap} > /dev/null 2>&1 & echo left one behind` });
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toHaveLength(2));
    await h.core.close();
    expect(processesMatching(`sleep ${nap}`)).toEqual([]);
  });

  it('deleting a session stops its tasks', async () => {
    h = await createTasksHarness();
    const nap = uniqueSleep();
    await callTool(h, 'Bash', { command: `sleep ${nap}`, run_in_background: true, description: 'bg' });
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toHaveLength(1));
    await h.core.handlers.deleteSession({ sessionId: h.session.id });
    expect(processesMatching(`sleep ${nap}`)).toEqual([]);
  });

  it('tasks that were running when Deft died are lost on reload; survivors are stopped; the model is told', async () => {
    h = await createTasksHarness();
    await h.run('hello');
    const { sessions } = await h.core.handlers.listSessions({});
    const sessionDir = join(h.home, 'sessions');
    const nap = uniqueSleep();
    const id = 'bash-0lost000';
    const survivor = spawn('sleep', [nap], { detached: true, stdio: 'ignore', env: { ...process.env, DEFT_TASK_ID: id } });
    survivor.unref();
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toHaveLength(1));
    await h.core.close();
    const dir = await findSessionDir(sessionDir, sessions[0]!.id);
    await mkdir(join(dir, 'tasks', id), { recursive: true });
    await writeFile(join(dir, 'tasks', id, 'output.log'), 'compiling…\n');
    const record = {
      id,
      kind: 'bash',
      description: 'long build',
      command: `sleep ${nap}`,
      cwd: h.workspace,
      status: 'running',
      pid: survivor.pid,
      startedAt: Date.now() - 5000,
      timeoutSec: 600,
      outputPath: join(dir, 'tasks', id, 'output.log'),
      outputBytes: 11,
      notified: false,
    };
    await writeFile(join(dir, 'tasks', `${id}.json`), JSON.stringify(record));

    const core = new DeftCore({
      home: h.home,
      workspace: h.workspace,
      host: cliHost(),
      secrets: h.secrets,
      capabilities: [shellCapability({ killGraceMs: 300 })],
    });
    extraCores.push(core);
    const listed = await core.handlers.listTasks({ sessionId: h.session.id });
    expect(listed.tasks).toMatchObject([{ id, status: 'lost', reason: 'Deft stopped while it was running', tail: 'compiling…' }]);
    // The clean-up runs after listTasks returns and reads every process's environment to find the marker;
    // on a loaded machine with hundreds of processes that alone can take seconds.
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toEqual([]), 20_000);
    expect(JSON.parse(await readFile(join(dir, 'tasks', `${id}.json`), 'utf8'))).toMatchObject({ status: 'lost' });
    await core.handlers.sendPrompt({ sessionId: h.session.id, text: 'what happened?' });
    await core.turnDone(h.session.id);
    expect(lastRequestText(h)).toMatch(/type="task.lost"[\s\S]*bash-0lost000: long build/);
  });
});

async function findSessionDir(root: string, id: string): Promise<string> {
  const { readdir } = await import('node:fs/promises');
  for (const folder of await readdir(root)) {
    const candidate = join(root, folder, id);
    try {
      await readdir(candidate);
      return candidate;
    } catch {
      // not this workspace folder
    }
  }
  throw new Error(`session ${id} not found under ${root}`);
}

describeSandboxed('background tasks in the OS sandbox', () => {
  it('a finished command leaves nothing behind (its processes die with it); background tasks run until stopped', async () => {
    h = await createTasksHarness();
    const nap = uniqueSleep();
    await callTool(h, 'Bash', { command: `sleep ${nap} & wait`, run_in_background: true, description: 'bg' });
    await callTool(h, 'Bash', { command: `nohup sleep ${nap} > /dev/null 2>&1 & echo left one behind` });
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toHaveLength(1));
    await h.core.close();
    expect(processesMatching(`sleep ${nap}`)).toEqual([]);
  });
});

describe('a cap on running background tasks (issue 27, finding 13)', () => {
  it('one step asking for more background commands than the setting allows starts only that many; the rest are refused naming the setting', async () => {
    h = await createTasksHarness();
    const settings = JSON.parse(await readFile(join(h.home, 'settings.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(h.home, 'settings.json'), JSON.stringify({ ...settings, tasks: { maxRunning: 3 } }));
    const nap = uniqueSleep();
    const calls = Array.from({ length: 6 }, (_, i) => ({
      toolCall: { id: `c${i}`, name: 'Bash', args: JSON.stringify({ command: `sleep ${nap}`, run_in_background: true, description: `job ${i}` }) },
    }));
    h.server.enqueue({ chunks: [...calls, { finish: 'tool_calls' }] }, { chunks: [{ text: 'done' }, { finish: 'stop' }] });
    await h.run('start many');
    const results = h.server.requests[1]!.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(results.filter((r) => r.startsWith('Started in the background'))).toHaveLength(3);
    const refused = results.filter((r) => !r.startsWith('Started in the background'));
    expect(refused).toHaveLength(3);
    for (const text of refused) expect(text).toContain('as many as it may at once (3; "tasks": {"maxRunning": N} in ~/.deft/settings.json sets it)');
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toHaveLength(3), 10_000);
    // One ends: there is room again.
    const running = appEvents(h, 'task.started').map((e) => e.task.id);
    await callTool(h, 'TaskStop', { task_id: running[0]! });
    expect((await callTool(h, 'Bash', { command: `sleep ${nap}`, run_in_background: true, description: 'one more' })).content).toMatch(
      /^Started in the background/,
    );
  });

  it('defaults to 32 running per session', async () => {
    expect(DEFAULT_MAX_RUNNING_TASKS).toBe(32);
    h = await createTasksHarness();
    expect(await maxRunningTasks(h.home)).toBe(32);
  });
});
