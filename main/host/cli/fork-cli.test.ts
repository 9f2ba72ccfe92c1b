import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { fastRetry, tempDir } from '#test-support/harness';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { runCliProcess } from '#test-support/cli-process';
import { workspaceSessionsDir } from '#infra/sessions/store';
import { type CliIo, runCli } from './cli';

let server: MockModelServer;
let workspace: string;
let home: string;

beforeEach(async () => {
  server = new MockModelServer();
  await server.start();
  workspace = await tempDir('deft-fork-ws-');
  home = await tempDir('deft-fork-home-');
});
afterEach(() => server.close());

async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: { DEFT_HOME: home }, cwd: workspace, coreOptions: { retry: fastRetry } };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

const flags = () => ['--base-url', server.baseUrl, '--model', 'mock-model', '--permission-mode', 'yolo'];
const run = (...args: string[]) => cli(['run', ...flags(), ...args]);
const notes = () => readFile(join(workspace, 'notes.txt'), 'utf8');
const userTexts = () =>
  server.requests
    .at(-1)!
    .body.messages.filter((m) => m.role === 'user' && typeof m.content === 'string' && !m.content.startsWith('<'))
    .map((m) => m.content);

describe('deft run --fork', { timeout: 90_000 }, () => {
  it('forks after prompt N (a real process), restores the files with --fork-files restore, and refuses what cannot be', async () => {
    for (const n of [1, 2, 3]) {
      server.enqueue(toolStep(callChunk('Write', { path: 'notes.txt', content: `v${n}\n` })), textReply(`answer ${n}`));
      expect((await run('--continue', `prompt ${n}`)).code).toBe(0);
    }
    const [source] = await readdir(workspaceSessionsDir(home, workspace));

    // The CLI's own entry, as a process of its own: fork after prompt 2, files kept.
    server.enqueue(textReply('forked answer'));
    const forked = await runCliProcess(['run', ...flags(), '--fork', source!, '--at', '2', 'after the fork'], { cwd: workspace, env: { DEFT_HOME: home } });
    expect(forked.stdout).toBe('forked answer\n');
    expect(forked.code).toBe(0);
    expect(forked.stderr).toMatch(new RegExp(`^deft: forked session ${source} after prompt 2 into (\\S+)\\n$`));
    expect(userTexts()).toEqual(['prompt 1', 'prompt 2', 'after the fork']);
    expect(await notes()).toBe('v3\n');

    // Files as they were after prompt 1, then that restore undone with deft rewind --undo on the fork.
    server.enqueue(textReply('restored answer'));
    const restored = await run('--fork', source!, '--at', '1', '--fork-files', 'restore', 'look again');
    expect(restored.code).toBe(0);
    expect(restored.stderr).toContain('files restored: 1 restored, 0 removed, 0 brought back');
    expect(userTexts()).toEqual(['prompt 1', 'look again']);
    expect(await notes()).toBe('v1\n');
    const fork = /into (\S+);/.exec(restored.stderr)![1]!;
    // A turn has run in the fork since: like a rewind, the restore can no longer be undone then.
    expect((await cli(['rewind', '--session', fork, '--undo'])).stderr).toContain('A turn has run since the last rewind');

    // Without --at: the whole session.
    server.enqueue(textReply('whole'));
    expect((await run('--fork', source!, 'all of it')).code).toBe(0);
    expect(userTexts()).toEqual(['prompt 1', 'prompt 2', 'prompt 3', 'all of it']);

    expect(await run('--fork', source!, '--at', '4', 'x')).toMatchObject({ code: 2, stderr: 'deft: Cannot fork at prompt 4: it has 3 prompts: use 1 to 3.\n' });
    expect(await run('--fork', '../../etc', 'x')).toMatchObject({ code: 2 });
    expect((await run('--fork', '20990101-000000-abcdef', 'x')).stderr).toContain('There is no session "20990101-000000-abcdef"');
    expect(await run('--fork', source!, '--at', '0', 'x')).toMatchObject({ code: 2, stderr: expect.stringContaining('--at must be a prompt number') });
    expect(await run('--fork', source!, '--fork-files', 'nuke', 'x')).toMatchObject({ code: 2, stderr: 'deft: --fork-files must be keep or restore\n' });
    expect(await run('--at', '1', 'x')).toMatchObject({ code: 2, stderr: 'deft: --at and --fork-files go with --fork SESSION_ID\n' });
    expect(await run('--fork', source!, '--continue', 'x')).toMatchObject({ code: 2 });
  });
});
