import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { tempDir } from '#test-support/harness';
import { cliCommand } from '#test-support/cli-process';
import { type QueryMessage, query } from './index';

// Issue 31: deft/sdk's query — the CLI's stream-json run, driven from a program: events out, answers and steers in.

let server: MockModelServer;
let workspace: string;
let home: string;
beforeEach(async () => {
  server = new MockModelServer();
  await server.start();
  workspace = await tempDir('deft-sdk-ws-');
  home = await tempDir('deft-sdk-home-');
});
afterEach(() => server.close());

const options = (...args: string[]) => ({
  cwd: workspace,
  command: cliCommand(),
  env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, DEFT_HOME: home },
  args: ['--base-url', server.baseUrl, '--model', 'mock-model', '--sandbox', 'off', ...args],
});

it('yields the run’s events and its result; an approval is answered and a steer reaches the next request', async () => {
  server.enqueue(
    { chunks: [{ toolCall: { name: 'Write', args: JSON.stringify({ path: 'notes.txt', content: 'hello\n' }) } }, { finish: 'tool_calls' }] },
    { chunks: [{ text: 'Wrote it.' }, { finish: 'stop' }] },
  );
  const run = query('Write notes.txt', options('--permission-mode', 'ask'));
  const seen: QueryMessage[] = [];
  for await (const message of run) {
    seen.push(message);
    if (message.type === 'approval.requested') {
      run.steer('Mention the date too.');
      run.answerApproval(message.requestId, 'allow');
    }
  }
  const types = seen.map((m) => m.type);
  expect(types).toContain('turn.started');
  expect(types).toContain('steer.delivered');
  expect(types.at(-1)).toBe('result');
  const result = await run.result;
  expect(result).toMatchObject({ type: 'result', is_error: false, result: 'Wrote it.' });
  expect(await readFile(join(workspace, 'notes.txt'), 'utf8')).toBe('hello\n');
  const second = server.requests[1]!.body.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
  expect(second).toContain('Mention the date too.');
  // The run has ended: nothing more can be sent.
  expect(() => run.steer('late')).toThrow(/has ended/);
}, 60_000);

it('a denied call is refused and listed; a run that cannot start rejects its result with the reason', async () => {
  server.enqueue(
    { chunks: [{ toolCall: { name: 'Write', args: JSON.stringify({ path: 'x.txt', content: 'x' }) } }, { finish: 'tool_calls' }] },
    { chunks: [{ text: 'Not written.' }, { finish: 'stop' }] },
  );
  const run = query('Write x.txt', options('--permission-mode', 'ask'));
  for await (const message of run) {
    if (message.type === 'approval.requested') run.answerApproval(message.requestId, 'deny', { message: 'not now' });
  }
  const result = await run.result;
  expect(result.result).toBe('Not written.');
  expect(result.permission_denials).toEqual([
    expect.objectContaining({ tool_name: 'Write', tool_input: expect.objectContaining({ path: 'x.txt' }), message: expect.stringContaining('not now') }),
  ]);
  await expect(readFile(join(workspace, 'x.txt'))).rejects.toThrow();

  const bad = query('hi', { ...options('--permission-mode', 'nonsense') });
  for await (const _ of bad) {
    // drained
  }
  await expect(bad.result).rejects.toThrow(/without a result.*permission-mode/s);
}, 60_000);
