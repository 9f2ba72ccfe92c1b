import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Harness, appEvents, callTool, createSpyHarness, createTasksHarness } from '#test-support/shell-harness';
import { eventually, processesMatching, uniqueSleep } from '#test-support/processes';

let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

describe('Bash never hangs on input', () => {
  it('`cat` with no input returns at once', async () => {
    h = await createTasksHarness();
    const { content, result } = await callTool(h, 'Bash', { command: 'cat; echo "cat done"', timeout: 20 });
    expect(content).toBe('cat done\nCommand executed successfully.');
    expect(result.isError).toBe(false);
    expect(result.display).toEqual({ kind: 'command_output', exitCode: 0, output: 'cat done', logId: expect.stringMatching(/^bash-[0-9a-z]{8}$/) });
  });

  it('`read x` returns (end of input)', async () => {
    h = await createTasksHarness();
    const { content } = await callTool(h, 'Bash', { command: 'read x; echo "read exited $?"', timeout: 20 });
    expect(content).toBe('read exited 1\nCommand executed successfully.');
  });

  it('a program opening /dev/tty fails fast instead of waiting for a password', async () => {
    h = await createTasksHarness();
    const { content, result } = await callTool(h, 'Bash', { command: 'echo -n "Password: "; read -r pw < /dev/tty', timeout: 20 });
    expect(content).toMatch(/Password: .*\/dev\/tty: No such device or address\nCommand failed with exit code: 1\.$/s);
    expect(result.isError).toBe(true);
    expect(content).toMatch(/^ERROR: /);
  });
});

describe('Bash output and errors', () => {
  it('marks the lines written to stderr for the window, and keeps the full log readable by the command id', async () => {
    h = await createTasksHarness();
    const { result } = await callTool(h, 'Bash', {
      command: 'echo "compiling"; echo "src/a.ts:3 error: bad" >&2; sleep 0.05; echo "1 file"; echo "Build failed" >&2; exit 2',
    });
    const display = result.display as { output: string; stderrLines?: Array<[number, number]>; logId?: string };
    const lines = display.output.split('\n');
    expect(lines).toEqual(['compiling', 'src/a.ts:3 error: bad', '1 file', 'Build failed', 'Command failed with exit code: 2.']);
    const stderr = lines.filter((_, i) => display.stderrLines?.some(([from, to]) => i >= from && i < to));
    expect(stderr).toEqual(['src/a.ts:3 error: bad', 'Build failed']);
    const log = await h.core.handlers.readTaskOutput({ sessionId: h.session.id, taskId: display.logId! });
    expect(log.text).toBe('compiling\nsrc/a.ts:3 error: bad\n1 file\nBuild failed\n');
  });

  it('never reads through a link put in place of a command log, nor an id that was never run', async () => {
    h = await createTasksHarness();
    const { result } = await callTool(h, 'Bash', { command: 'echo hi' });
    const logId = (result.display as { logId: string }).logId;
    const log = (await h.core.handlers.readTaskOutput({ sessionId: h.session.id, taskId: logId })).path;
    const secret = join(h.home, 'secret.txt');
    await writeFile(secret, 'TOKEN=abc');
    await rm(log);
    await symlink(secret, log);
    await expect(h.core.handlers.readTaskOutput({ sessionId: h.session.id, taskId: logId })).rejects.toThrow(/no task/);
    await expect(h.core.handlers.readTaskOutput({ sessionId: h.session.id, taskId: 'bash-zzzzzzzz' })).rejects.toThrow(/no task/);
  });

  it('marks stderr lines in the tail of a long output too', async () => {
    h = await createTasksHarness();
    const { result } = await callTool(h, 'Bash', { command: 'seq 1 20000; echo "fatal: it broke" >&2; exit 1' });
    const display = result.display as { output: string; stderrLines?: Array<[number, number]> };
    const lines = display.output.split('\n');
    const stderr = lines.filter((_, i) => display.stderrLines?.some(([from, to]) => i >= from && i < to));
    expect(stderr).toEqual(['fatal: it broke']);
    expect(lines.at(-2)).toBe('fatal: it broke');
  });

  it('streams output live to the card and runs in the workspace with the given cwd', async () => {
    h = await createTasksHarness();
    await writeFile(join(h.workspace, 'marker.txt'), 'x');
    const { content, result } = await callTool(h, 'Bash', { command: 'ls; printf "\\033[31mred\\033[0m\\n"; pwd', description: 'list files' });
    expect(content).toBe(`marker.txt\nred\n${h.workspace}\nCommand executed successfully.`);
    const progress = h.sessionEvents('tool.call.progress').filter((e) => 'callId' in e && e.callId === result.callId);
    expect(progress.map((e) => (e as { text: string }).text).join('')).toBe(`marker.txt\nred\n${h.workspace}\n`);
    expect(h.sessionEvents('tool.call.started').at(-1)).toMatchObject({
      description: 'list files',
      display: { kind: 'command', command: expect.stringContaining('ls'), cwd: '.', description: 'list files' },
    });
  });

  it('shortens long output to its head and tail with a pointer to the full log', async () => {
    h = await createTasksHarness();
    const { content, result } = await callTool(h, 'Bash', { command: 'seq 1 100000' });
    expect(content.startsWith('1\n2\n3\n')).toBe(true);
    expect(content.endsWith('99999\n100000\nCommand executed successfully.')).toBe(true);
    expect(content.length).toBeLessThan(50_000);
    const pointer = /\[\.\.\. ([\d.]+ KiB) omitted: the full output \(([\d.]+ KiB)\) is in (\S+output\.log); Read it/.exec(content);
    expect(pointer).not.toBeNull();
    expect(pointer![3]!.startsWith(h.home)).toBe(true);
    expect(result.display).toMatchObject({ kind: 'command_output', truncated: true });
  });

  it('stops a command that streams more than 16 MiB, with a message saying what to do instead', async () => {
    h = await createTasksHarness();
    const { content, result } = await callTool(h, 'Bash', { command: 'yes deft' });
    expect(content).toMatch(/^ERROR: deft\ndeft\n/);
    expect(content).toMatch(/\[\.\.\. [\d.]+ MiB omitted: the full output \(16 MiB\) is in /);
    expect(
      content.endsWith(
        'Command stopped: output limit exceeded (it wrote more than 16 MiB). Send its output to a file (e.g. `cmd > out.log 2>&1`) and search that file.',
      ),
    ).toBe(true);
    expect(result.display).toMatchObject({ kind: 'command_output', exitCode: null, truncated: true });
  });

  it('reports the exit code of a failing command', async () => {
    h = await createTasksHarness();
    const { content, result } = await callTool(h, 'Bash', { command: 'echo oops >&2; exit 3' });
    expect(content).toBe('ERROR: oops\nCommand failed with exit code: 3.');
    expect(result.display).toMatchObject({ exitCode: 3 });
  });

  it('refuses bad arguments with a message saying what to do', async () => {
    h = await createTasksHarness();
    await writeFile(join(h.workspace, 'file.txt'), 'x');
    expect((await callTool(h, 'Bash', { command: 'true', timeout: 301 })).content).toMatch(
      /timeout is at most 300 seconds for a foreground command.*run_in_background: true/,
    );
    expect((await callTool(h, 'Bash', { command: 'true', disable_timeout: true })).content).toMatch(/disable_timeout only applies to background commands/);
    expect((await callTool(h, 'Bash', { command: 'sleep 1', run_in_background: true })).content).toMatch(/A background command needs a description/);
    expect((await callTool(h, 'Bash', { command: 'true', cwd: '../..' })).content).toMatch(/outside the workspace.*absolute path/);
    expect((await callTool(h, 'Bash', { command: 'true', cwd: 'file.txt' })).content).toMatch(/is a file, not a directory/);
    expect((await callTool(h, 'Bash', { command: 'true', cwd: 'nope' })).content).toMatch(/does not exist/);
    expect((await callTool(h, 'Bash', { command: '' })).content).toMatch(/Invalid arguments for Bash/);
  });

  it('exposes the command, where it runs and whether sandboxed for the permission layer, and an exact approval rule', async () => {
    const seen: Array<{ shell: unknown; rule: string }> = [];
    h = await createSpyHarness((call) => seen.push({ shell: call.execution.shell, rule: call.execution.approvalRule }));
    await mkdir(join(h.workspace, 'sub'));
    await callTool(h, 'Bash', { command: 'echo a*b' });
    await callTool(h, 'Bash', { command: 'pwd', cwd: 'sub' });
    const sandboxed = (await h.core.handlers.getWorkspace({})).sandbox?.enabled === true;
    expect(seen).toEqual([
      { shell: { command: 'echo a*b', cwd: h.workspace, sandboxed }, rule: 'Bash(echo a\\*b)' },
      { shell: { command: 'pwd', cwd: join(h.workspace, 'sub'), sandboxed }, rule: 'Bash(pwd)' },
    ]);
  });
});

describe('Bash timeouts, cancel and stop', () => {
  it('moves a foreground command to the background at its timeout, with its task id', async () => {
    h = await createTasksHarness();
    const { content, result } = await callTool(h, 'Bash', { command: 'echo started; sleep 30', timeout: 1 });
    expect(content).toMatch(/still running when its 1 s timeout ran out, so it was moved to the background \(it was not stopped\)/);
    expect(content).toMatch(/Output so far:\nstarted\n/);
    const id = /task_id: (bash-[0-9a-z]{8})/.exec(content)![1]!;
    expect(result.display).toEqual({ kind: 'task', taskId: id, status: 'running', description: 'echo started; sleep 30' });
    const { tasks } = await h.core.handlers.listTasks({ sessionId: h.session.id });
    expect(tasks).toMatchObject([{ id, status: 'running', timeoutSec: 600 }]);
    expect(appEvents(h, 'task.started').map((e) => e.task.id)).toEqual([id]);
  });

  it('cancelling the turn kills the command tree', async () => {
    h = await createTasksHarness();
    const nap = uniqueSleep();
    h.server.enqueue({ chunks: [{ toolCall: { name: 'Bash', args: JSON.stringify({ command: `sleep ${nap} & wait` }) } }, { finish: 'tool_calls' }] });
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'go' });
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toHaveLength(1));
    await h.core.handlers.cancelTurn({ sessionId: h.session.id });
    await h.core.turnDone(h.session.id);
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toEqual([]));
    expect(h.sessionEvents('tool.call.result').at(-1)).toMatchObject({ isError: true, output: expect.stringMatching(/Interrupted by user\.$/) });
  });

  it('the user stops a quiet foreground command from its card; the turn carries on', async () => {
    h = await createTasksHarness();
    const nap = uniqueSleep();
    h.server.enqueue({
      chunks: [{ toolCall: { id: 'c1', name: 'Bash', args: JSON.stringify({ command: `echo hello; sleep ${nap}` }) } }, { finish: 'tool_calls' }],
    });
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'go' });
    const waiting = await eventually(() => {
      const event = appEvents(h, 'command.activity').find((e) => e.activity.waiting);
      if (!event) throw new Error('not yet waiting');
      return event;
    });
    expect(waiting.activity).toMatchObject({ callId: 'c1', waiting: true });
    expect((await h.core.handlers.listTasks({ sessionId: h.session.id })).commands).toMatchObject([{ callId: 'c1', waiting: true }]);
    expect(await h.core.handlers.stopOrBackgroundCommand({ sessionId: h.session.id, callId: 'c1', action: 'stop' })).toEqual({ ok: true });
    await h.core.turnDone(h.session.id);
    expect(processesMatching(`sleep ${nap}`)).toEqual([]);
    const message = h.server.requests.at(-1)!.body.messages.at(-1)!;
    expect(message).toMatchObject({ role: 'tool', tool_call_id: 'c1' });
    expect(String(message.content)).toMatch(/^ERROR: hello\nCommand stopped by the user after .*Do not run it again unless the user asks\.$/);
    await expect(h.core.handlers.stopOrBackgroundCommand({ sessionId: h.session.id, callId: 'c1', action: 'stop' })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('the user sends a foreground command to the background from its card', async () => {
    h = await createTasksHarness();
    h.server.enqueue({
      chunks: [
        { toolCall: { id: 'c2', name: 'Bash', args: JSON.stringify({ command: 'echo building; sleep 20', description: 'build' }) } },
        { finish: 'tool_calls' },
      ],
    });
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'go' });
    await eventually(() => expect(h.sessionEvents('tool.call.progress').length).toBeGreaterThan(0));
    const reply = await h.core.handlers.stopOrBackgroundCommand({ sessionId: h.session.id, callId: 'c2', action: 'background' });
    await h.core.turnDone(h.session.id);
    expect(reply.taskId).toMatch(/^bash-/);
    const content = String(h.server.requests.at(-1)!.body.messages.at(-1)!.content);
    expect(content).toMatch(/^The user moved the command to the background after .*\nOutput so far:\nbuilding\n/);
    expect((await h.core.handlers.listTasks({ sessionId: h.session.id })).tasks).toMatchObject([{ id: reply.taskId, status: 'running', description: 'build' }]);
  });
});
