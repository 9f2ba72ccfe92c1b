import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { standInTools } from '#test-support/stand-in-tools';
import { fastRetry, tempDir } from '#test-support/harness';
import { runCliProcess } from '#test-support/cli-process';
import { runCli } from './cli';

// Issue 31: deft run --input-format stream-json — prompts, steers and approval answers as JSON lines on stdin.

let server: MockModelServer;
let workspace: string;
let home: string;

beforeEach(async () => {
  server = new MockModelServer();
  await server.start();
  workspace = await tempDir('deft-cli-stdin-ws-');
  home = await tempDir('deft-cli-stdin-home-');
});
afterEach(() => server.close());

/** stdin as the test writes it: lines pushed one at a time, then closed. */
class Stdin implements AsyncIterable<string> {
  private lines: string[] = [];
  private closed = false;
  private wake: (() => void) | null = null;
  push(line: string | object) {
    this.lines.push(typeof line === 'string' ? line : JSON.stringify(line));
    this.wake?.();
  }
  close() {
    this.closed = true;
    this.wake?.();
  }
  async *[Symbol.asyncIterator]() {
    for (;;) {
      if (this.lines.length) yield this.lines.shift()!;
      else if (this.closed) return;
      else await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

function start(stdin: Stdin, ...flags: string[]) {
  const out = { stdout: '', stderr: '' };
  const events = () =>
    out.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const until = async (test: (e: Record<string, unknown>) => boolean) => {
    for (let i = 0; i < 500; i++) {
      const hit = events().find(test);
      if (hit) return hit;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no such event in:\n${out.stdout}`);
  };
  const code = runCli(['run', '--base-url', server.baseUrl, '--model', 'm', '--input-format', 'stream-json', '--output-format', 'stream-json', ...flags], {
    stdout: (t) => (out.stdout += t),
    stderr: (t) => (out.stderr += t),
    env: { DEFT_HOME: home },
    cwd: workspace,
    stdinLines: () => stdin,
    coreOptions: { retry: fastRetry, tools: () => standInTools() },
  });
  return { code, out, events, until };
}

const user = (content: unknown) => ({ type: 'user', message: { role: 'user', content } });
const say = (text: string) => ({ chunks: [{ text }, { finish: 'stop' as const }] });
const texts = (i: number) => server.requests[i]!.body.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');

describe('deft run --input-format stream-json', () => {
  it('runs prompts in sequence (string and text-block content), skips malformed lines with an error event, ends when stdin closes', async () => {
    server.enqueue(say('first answer'), say('second answer'));
    const stdin = new Stdin();
    const run = start(stdin);
    stdin.push(user('one'));
    stdin.push('{"type": "user", oops');
    stdin.push({ type: 'user', message: { role: 'user', content: [{ type: 'image', source: {} }] } });
    stdin.push({ type: 'approval', id: 'nope', decision: 'allow' });
    stdin.push({ type: '__proto__', constructor: { prototype: { polluted: true } } });
    stdin.push('x'.repeat(1_000_001));
    stdin.push(
      user([
        { type: 'text', text: 'two' },
        { type: 'text', text: 'parts' },
      ]),
    );
    stdin.close();
    expect(await run.code).toBe(0);
    expect(server.requests).toHaveLength(2);
    expect(texts(0)).toContain('one');
    expect(texts(1)).toContain('two\n\nparts');
    const errors = run.events().filter((e) => e.type === 'input.error');
    expect(errors.map((e) => e.line)).toEqual([2, 3, 4, 5, 6]);
    expect(String(errors[0]!.message)).toContain('not JSON');
    expect(String(errors[2]!.message)).toContain('no longer waiting');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(run.out.stderr).toContain('stdin line 2');
    const result = run.events().at(-1)!;
    expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'second answer', num_turns: 2 });
  });

  it('asks for an approval on stdout and takes the answer from stdin; a steer sent meanwhile reaches the next step', async () => {
    server.enqueue(
      { chunks: [{ toolCall: { name: 'Write', args: '{"path":"a.txt","content":"A"}' } }, { finish: 'tool_calls' }] },
      { chunks: [{ toolCall: { name: 'Write', args: '{"path":"b.txt","content":"B"}' } }, { finish: 'tool_calls' }] },
      say('done'),
    );
    const stdin = new Stdin();
    const run = start(stdin);
    stdin.push(user('write two files'));
    const first = await run.until((e) => e.type === 'approval.requested');
    stdin.push({ type: 'steer', text: 'also mention the weather' });
    await run.until((e) => e.type === 'prompt.queued');
    stdin.push({ type: 'approval', id: first.requestId, decision: 'allow' });
    const second = await run.until((e) => e.type === 'approval.requested' && e.requestId !== first.requestId);
    stdin.push({ type: 'approval', id: second.requestId, decision: 'deny', message: 'not b' });
    stdin.close();
    expect(await run.code).toBe(0);
    expect(await readFile(join(workspace, 'a.txt'), 'utf8')).toBe('A');
    await expect(readFile(join(workspace, 'b.txt'))).rejects.toThrow();
    expect(texts(1)).toContain('also mention the weather');
    expect(texts(0)).not.toContain('also mention the weather');
    expect(texts(2)).toContain('not b');
    expect(run.events().find((e) => e.type === 'steer.delivered')).toMatchObject({ step: 2 });
    expect(run.events().at(-1)).toMatchObject({ type: 'result', permission_denials: [{ tool_name: 'Write', tool_input: { path: 'b.txt' } }] });
  });

  it('refuses what still waits for an answer when stdin closes, and the turn ends', async () => {
    server.enqueue({ chunks: [{ toolCall: { name: 'Write', args: '{"path":"a.txt","content":"A"}' } }, { finish: 'tool_calls' }] }, say('ok'));
    const stdin = new Stdin();
    const run = start(stdin);
    stdin.push(user('write'));
    await run.until((e) => e.type === 'approval.requested');
    stdin.close();
    expect(await run.code).toBe(0);
    await expect(readFile(join(workspace, 'a.txt'))).rejects.toThrow();
    expect(texts(1)).toContain('stdin closed');
  });

  it('as a process of its own: piped stdin, read line by line, the process ends when stdin closes', async () => {
    server.enqueue(say('A1'), say('A2'));
    const stdin = [JSON.stringify(user('one')), '{not json', JSON.stringify(user('two'))].join('\n') + '\n';
    const result = await runCliProcess(
      ['run', '--base-url', server.baseUrl, '--model', 'm', '--input-format', 'stream-json', '--output-format', 'stream-json'],
      { cwd: workspace, env: { DEFT_HOME: home }, stdin, timeoutMs: 60_000 },
    );
    expect(result.timedOut).toBe(false);
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((e) => e.type === 'turn.ended')).toHaveLength(2);
    expect(lines.find((e) => e.type === 'input.error')).toMatchObject({ line: 2 });
    expect(lines.at(-1)).toMatchObject({ type: 'result', result: 'A2' });
  });

  it('needs --output-format stream-json (exit 2)', async () => {
    const result = await runCli(['run', '--base-url', server.baseUrl, '--model', 'm', '--input-format', 'stream-json'], {
      stdout: () => {},
      stderr: () => {},
      env: { DEFT_HOME: home },
      cwd: workspace,
      stdinLines: () => new Stdin(),
    });
    expect(result).toBe(2);
  });
});
