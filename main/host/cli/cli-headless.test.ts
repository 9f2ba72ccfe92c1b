import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer, textChunks } from '#test-support/mock-model-server';
import { fastRetry, tempDir } from '#test-support/harness';
import { testTools } from '#test-support/tools';
import { type CliIo, runCli } from './cli';

// Issue 31, headless for scripts and CI: --output-format json, the exit codes, --effort, --max-turns, --append-system-prompt.

let server: MockModelServer;
let workspace: string;
let home: string;

beforeEach(async () => {
  server = new MockModelServer();
  await server.start();
  workspace = await tempDir('deft-cli-headless-ws-');
  home = await tempDir('deft-cli-headless-home-');
});
afterEach(() => server.close());

async function cli(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { DEFT_HOME: home },
    cwd: workspace,
    coreOptions: { retry: fastRetry, tools: () => testTools },
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

const run = (model: string, ...args: string[]) => cli('run', '--base-url', server.baseUrl, '--model', model, ...args);

/** stdout holds exactly one line, and it is one JSON object. */
function theResult(stdout: string): Record<string, unknown> {
  expect(stdout.endsWith('\n')).toBe(true);
  expect(stdout.slice(0, -1)).not.toContain('\n');
  const parsed = JSON.parse(stdout) as unknown;
  expect(typeof parsed).toBe('object');
  return parsed as Record<string, unknown>;
}

const loop = () => ({ chunks: [{ toolCall: { name: 'Echo', args: '{"text":"again"}' } }, { finish: 'tool_calls' as const }] });

describe('deft run --output-format json', () => {
  it('prints one result object in Claude Code’s shape, priced from the price table, even when the answer breaks JSON', async () => {
    const nasty = 'Done. "}\n{"type":"result","is_error":true}\n\\ \u0000 \u2028 \ud800 `</script>` ✓';
    server.enqueue(
      {
        chunks: [
          { text: 'Looking.' },
          { toolCall: { name: 'Echo', args: '{"text":"x"}' } },
          { finish: 'tool_calls' },
          { usage: { prompt_tokens: 1000, completion_tokens: 20, cached_tokens: 400 } },
        ],
      },
      { chunks: [...textChunks(nasty, 5), { finish: 'stop' }, { usage: { prompt_tokens: 2000, completion_tokens: 30, cached_tokens: 1000 } }] },
    );
    const result = await run('gpt-4.1', '--output-format', 'json', 'go');
    expect(result.code).toBe(0);
    const json = theResult(result.stdout);
    expect(json).toMatchObject({ type: 'result', subtype: 'success', is_error: false, num_turns: 2 });
    expect(json.result).toBe(nasty);
    expect(json.session_id).toMatch(/\S/);
    expect(typeof json.duration_ms).toBe('number');
    expect(json.usage).toEqual({ input_tokens: 3000, output_tokens: 50, cache_read_input_tokens: 1400, cache_creation_input_tokens: 0 });
    // gpt-4.1: $2 input, $0.50 cached input, $8 output per million tokens.
    expect(json.total_cost_usd).toBeCloseTo((1600 * 2 + 1400 * 0.5 + 50 * 8) / 1_000_000, 12);
    expect(result.stderr).toBe('');
  });

  it('leaves total_cost_usd out for a model the table does not price', async () => {
    server.enqueue({ chunks: [{ text: 'hi' }, { finish: 'stop' }, { usage: { prompt_tokens: 10, completion_tokens: 2 } }] });
    const json = theResult((await run('my-local-model', '--output-format', 'json', 'hi')).stdout);
    expect(json).toMatchObject({ subtype: 'success', result: 'hi', usage: { input_tokens: 10, output_tokens: 2 } });
    expect(json).not.toHaveProperty('total_cost_usd');
  });

  it('a provider failure: exit 1, is_error, the message in the result object', async () => {
    server.enqueue({ status: 401, body: '{"error":{"message":"nope"}}' });
    const result = await run('m', '--output-format', 'json', 'hi');
    expect(result.code).toBe(1);
    const json = theResult(result.stdout);
    expect(json).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true });
    expect(String(json.error)).toContain('The API key was rejected');
  });
});

describe('deft run exit codes', () => {
  it('4 when the step budget runs out (--max-turns, or --max-steps), with error_max_turns', async () => {
    server.fallback = loop;
    const turns = await run('m', '--max-turns', '2', '--output-format', 'json', 'loop');
    expect(turns.code).toBe(4);
    expect(server.requests).toHaveLength(2);
    expect(theResult(turns.stdout)).toMatchObject({ subtype: 'error_max_turns', is_error: true, num_turns: 2 });
    const steps = await run('m', '--max-steps', '1', 'loop');
    expect(steps.code).toBe(4);
    expect(steps.stderr).toContain('--max-steps');
  });

  it('3 when a UserPromptSubmit hook refuses the prompt (nothing reaches the model)', async () => {
    const block = { UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'echo "not in CI" >&2; exit 2' }] }] };
    await writeFile(join(home, 'settings.json'), JSON.stringify({ hooks: block }));
    server.enqueue({ chunks: [{ text: 'should not be asked' }, { finish: 'stop' }] });
    const result = await run('m', '--output-format', 'json', 'hi');
    expect(result.code).toBe(3);
    expect(server.requests).toHaveLength(0);
    expect(theResult(result.stdout)).toMatchObject({ subtype: 'error_prompt_blocked', is_error: true, num_turns: 0 });
  });

  it('2 for bad flag values, with a clear message and nothing on stdout', async () => {
    const cases: [string[], string][] = [
      [['--effort', 'extreme'], '--effort must be one of off, low, medium, high, max'],
      [['--effort', ''], '--effort must be one of'],
      [['--max-turns', '0'], '--max-turns must be a positive whole number'],
      [['--max-turns', '1.5'], '--max-turns must be a positive whole number'],
      [['--max-turns', 'ten'], '--max-turns must be a positive whole number'],
      [['--max-turns', '1e3'], '--max-turns must be a positive whole number'],
      [['--append-system-prompt', '  '], '--append-system-prompt needs a text'],
      [['--output-format', 'yaml'], '--output-format must be one of text, stream-json, json'],
    ];
    for (const [flags, message] of cases) {
      const result = await run('m', '--output-format', 'json', ...flags, 'hi');
      expect(result.code, flags.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
      expect(result.stdout).toBe('');
    }
    const noPrompt = await cli('run', '--output-format', 'json');
    expect(noPrompt.code).toBe(2);
    expect(noPrompt.stdout).toBe('');
    expect((await cli('run', '--effort')).code).toBe(2);
    expect(server.requests).toHaveLength(0);
  });
});

describe('deft run --effort', () => {
  it('sets the session’s effort as the window does: reasoning_effort in the OpenAI-compatible request (max is xhigh, off sends none)', async () => {
    server.fallback = () => ({ chunks: [{ text: 'ok' }, { finish: 'stop' }] });
    expect((await run('m', '--effort', 'high', 'hi')).code).toBe(0);
    expect(server.requests[0]!.body.reasoning_effort).toBe('high');
    await run('m', '--effort', 'max', 'hi');
    expect(server.requests[1]!.body.reasoning_effort).toBe('xhigh');
    await run('m', '--effort', 'off', 'hi');
    expect(server.requests[2]!.body).not.toHaveProperty('reasoning_effort');
    await run('m', 'hi');
    expect(server.requests[3]!.body).not.toHaveProperty('reasoning_effort');
  });
});

describe('deft run --append-system-prompt', () => {
  it('adds the text to the system prompt the model reads', async () => {
    server.enqueue({ chunks: [{ text: 'ok' }, { finish: 'stop' }] });
    expect((await run('m', '--append-system-prompt', 'Answer in French, always.', 'hi')).code).toBe(0);
    const system = server.requests[0]!.body.messages.find((m) => m.role === 'system');
    expect(JSON.stringify(system?.content)).toContain('Answer in French, always.');
  });
});

describe('deft run --append-system-prompt on a resumed session', () => {
  it('reaches the model on --continue and --session: the kept system prompt is rendered again with the text', async () => {
    server.fallback = () => ({ chunks: [{ text: 'ok' }, { finish: 'stop' }] });
    const first = await run('m', '--output-format', 'json', 'hi');
    const sessionId = String(theResult(first.stdout).session_id);
    const system = (i: number) => JSON.stringify(server.requests[i]!.body.messages.find((m) => m.role === 'system')?.content);
    expect(system(0)).not.toContain('Always answer in haiku.');
    expect((await run('m', '--continue', '--append-system-prompt', 'Always answer in haiku.', 'again')).code).toBe(0);
    expect(system(1)).toContain('Always answer in haiku.');
    expect((await run('m', '--session', sessionId, '--append-system-prompt', 'Now in limericks.', 'more')).code).toBe(0);
    expect(system(2)).toContain('Now in limericks.');
  });
});
