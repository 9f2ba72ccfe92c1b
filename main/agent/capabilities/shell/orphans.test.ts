import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DeftCore } from '#runtime/core';
import { defaultCapabilities } from '../../capabilities';
import { workspaceSessionsDir } from '#infra/sessions/store';
import { type Harness, createTasksHarness } from '#test-support/shell-harness';
import { eventually, processesMatching, uniqueSleep } from '#test-support/processes';
import { cliHost } from '../../../host/hosts';

let h: Harness | undefined;
let later: DeftCore | undefined;
afterEach(async () => {
  await later?.close();
  await h?.dispose();
  later = h = undefined;
});

describe('finding 8: foreground commands left by a Deft that was killed', () => {
  it('are noted on disk while they run, and the note goes when they end', async () => {
    h = await createTasksHarness({}, { sandbox: 'off' });
    const tasks = join(workspaceSessionsDir(h.home, h.workspace), h.session.id, 'tasks');
    const { callTool } = await import('#test-support/shell-harness');
    const { content } = await callTool(h, 'Bash', { command: `sleep 0.5; ls "${tasks}"/*/foreground.json` });
    expect(content).toMatch(/foreground\.json/);
    // The first command's note went when it ended: only the running one is noted.
    const after = await callTool(h, 'Bash', { command: `sleep 0.5; ls "${tasks}"/*/foreground.json 2>/dev/null | wc -l` });
    expect(after.content.trim().split('\n')[0]).toBe('1');
  });

  it('are stopped when the session is opened again (--continue): found by the note and their marker', async () => {
    h = await createTasksHarness({}, { sandbox: 'off' });
    const nap = uniqueSleep();
    // What `kill -9` of Deft leaves: a foreground command still running (in a group of its own, with its
    // marker), and the note Deft wrote when it started it.
    const id = 'bash-0rphan01';
    const orphan = spawn('sh', ['-c', `sleep ${nap}`], { detached: true, stdio: 'ignore', env: { ...process.env, DEFT_TASK_ID: id } });
    orphan.unref();
    const note = join(workspaceSessionsDir(h.home, h.workspace), h.session.id, 'tasks', id, 'foreground.json');
    await mkdir(join(note, '..'), { recursive: true });
    await writeFile(note, JSON.stringify({ id, pid: orphan.pid, startedAt: Date.now() }));
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toHaveLength(1));

    // Deft starts again on the same home and opens the session.
    later = new DeftCore({ home: h.home, workspace: h.workspace, host: cliHost(), secrets: h.secrets, capabilities: defaultCapabilities, sandbox: 'off' });
    await later.handlers.openSession({ sessionId: h.session.id });
    // The first command that needs the session loads it: a prompt (--continue), or the window asking for its tasks.
    await later.handlers.listTasks({ sessionId: h.session.id });
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toEqual([]), 8_000);
  });
});
