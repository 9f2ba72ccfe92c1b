import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { fastRetry, tempDir } from '#test-support/harness';
import { callChunk, textReply, toolStep, withoutReminders } from '#test-support/mock-steps';
import { type CliIo, runCli } from './cli';

let server: MockModelServer;
let workspace: string;
let home: string;

beforeEach(async () => {
  server = new MockModelServer();
  await server.start();
  workspace = await tempDir('deft-cli-ws-');
  home = await tempDir('deft-cli-home-');
});
afterEach(() => server.close());

async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: { DEFT_HOME: home }, cwd: workspace, coreOptions: { retry: fastRetry } };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

const run = (prompt: string) => cli(['run', '--base-url', server.baseUrl, '--model', 'mock-model', '--permission-mode', 'yolo', '--continue', prompt]);
const file = () => readFile(join(workspace, 'notes.txt'), 'utf8').catch(() => null);

describe('deft checkpoints and deft rewind', { timeout: 90_000 }, () => {
  it('list the prompts, rewind code to prompt 2, undo that, and rewind both', async () => {
    await writeFile(join(workspace, 'notes.txt'), 'v0\n');
    server.enqueue(toolStep(callChunk('Bash', { command: 'echo v1 > notes.txt' })), textReply('one'));
    expect((await run('first change')).code).toBe(0);
    server.enqueue(toolStep(callChunk('Bash', { command: 'echo v2 > notes.txt && echo new > added.txt' })), textReply('two'));
    expect((await run('second change')).code).toBe(0);
    expect(await file()).toBe('v2\n');

    const listed = await cli(['checkpoints', '--continue']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^Prompts of session \S+:\n {4}N {2}when {17}files {2}prompt\n/);
    expect(listed.stdout).toMatch(/\n {4}1 {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d {6}1 {2}first change\n/);
    expect(listed.stdout).toMatch(/\n {4}2 {2}\S+ \S+ {6}2 {2}second change\n/);
    const json = JSON.parse((await cli(['checkpoints', '--continue', '--json'])).stdout) as { prompts: Array<{ index: number; changedFiles: number }> };
    expect(json.prompts.map((p) => [p.index, p.changedFiles])).toEqual([
      [1, 1],
      [2, 2],
    ]);

    const rewound = await cli(['rewind', '--continue', '--to', '2', '--scope', 'code']);
    expect(rewound).toMatchObject({ code: 0, stderr: '' });
    expect(rewound.stdout).toContain('Rewound code to just before prompt 2 ("second change"): 1 restored, 1 removed, 0 brought back.');
    expect(await file()).toBe('v1\n');
    await expect(readFile(join(workspace, 'added.txt'))).rejects.toThrow();

    expect((await cli(['rewind', '--continue', '--undo'])).code).toBe(0);
    expect(await file()).toBe('v2\n');

    const both = await cli(['rewind', '--continue', '--to', '1']);
    expect(both.code).toBe(0);
    expect(both.stdout).toContain('Rewound code and conversation to just before prompt 1');
    expect(both.stdout).toContain('2 turns taken out of the conversation');
    expect(await file()).toBe('v0\n');
    // The next run no longer reads the rewound turns.
    await run('after the rewind');
    expect(
      withoutReminders(server.requests.at(-1)!.body.messages)
        .filter((m) => m.role === 'user')
        .map((m) => m.content),
    ).toEqual(['after the rewind']);
  });

  it('gives usage errors (exit 2) for a missing session, a bad prompt number or scope, and both --to and --undo', async () => {
    expect((await cli(['checkpoints'])).stderr).toContain('say which session');
    expect((await cli(['rewind', '--session', 'nope', '--to', '1'])).code).toBe(2);
    server.enqueue(textReply('hi'));
    await run('hello');
    expect(await cli(['rewind', '--continue', '--to', '5'])).toMatchObject({
      code: 2,
      stderr: 'deft: this session has prompts 1 to 1 (see: deft checkpoints)\n',
    });
    expect((await cli(['rewind', '--continue', '--to', '1', '--scope', 'files'])).stderr).toContain('--scope must be one of both, code, conversation');
    expect((await cli(['rewind', '--continue', '--to', '1', '--undo'])).stderr).toContain('give either --to N or --undo');
    expect(await cli(['rewind', '--continue', '--undo'])).toMatchObject({ code: 1, stderr: 'deft: There is no rewind to undo in this session.\n' });
  });
});
