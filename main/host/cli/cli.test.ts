import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MockModelServer, textChunks } from '#test-support/mock-model-server';
import { LOG_FILE } from '#infra/sessions/session';
import { workspaceSessionsDir } from '#infra/sessions/store';
import { fastRetry, tempDir } from '#test-support/harness';
import { testTools } from '#test-support/tools';
import { put, skillMd } from '#test-support/skills';
import { type CliIo, runCli } from './cli';
import { reminders, withoutReminders } from '#test-support/mock-steps';
import { prefixBreaks } from '#test-support/request-prefix';

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

async function cli(args: string[], env: Record<string, string> = {}, interrupt?: { fire?: () => void }) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { DEFT_HOME: home, ...env },
    cwd: workspace,
    coreOptions: { retry: fastRetry, tools: () => testTools },
    ...(interrupt ? { onInterrupt: (handler: () => void) => ((interrupt.fire = handler), () => undefined) } : {}),
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

const provider = () => ['--base-url', server.baseUrl, '--model', 'mock-model'];

describe('deft run', () => {
  it('prints the final answer on stdout and exits 0', async () => {
    server.enqueue({ chunks: [...textChunks('Hello from the model.'), { finish: 'stop' }] });
    const result = await cli(['run', ...provider(), 'Say hello']);
    expect(result).toEqual({ code: 0, stdout: 'Hello from the model.\n', stderr: '' });
    expect(server.requests[0]!.body.stream).toBe(true);
  });

  it('prints only the last step after tool calls, which go back as role tool with string content', async () => {
    server.enqueue(
      { chunks: [{ text: 'Checking…' }, { toolCall: { id: 't1', name: 'Echo', args: '{"text":"x"}' } }, { finish: 'tool_calls' }] },
      { chunks: [{ text: 'Final.' }, { finish: 'stop' }] },
    );
    const result = await cli(['run', ...provider(), 'go']);
    expect(result.stdout).toBe('Final.\n');
    const toolMessage = server.requests[1]!.body.messages.at(-1)!;
    expect(toolMessage.role).toBe('tool');
    expect(typeof toolMessage.content).toBe('string');
    expect(server.requests[0]!.body.tools![0]).toMatchObject({ type: 'function', function: { name: 'Echo' } });
  });

  it('streams one protocol event per line with --output-format stream-json', async () => {
    server.enqueue({ chunks: [{ text: 'a' }, { text: 'b' }, { finish: 'stop' }, { usage: { prompt_tokens: 120, completion_tokens: 2, cached_tokens: 96 } }] });
    const result = await cli(['run', ...provider(), '--output-format', 'stream-json', 'hi']);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; seq: number; step?: { cachedTokens?: number } });
    // Cached prompt tokens travel in the usage event.
    expect(events.find((e) => e.type === 'usage')!.step).toMatchObject({ inputTokens: 120, cachedTokens: 96 });
    expect(events[0]!.type).toBe('turn.started');
    expect(events.filter((e) => e.type === 'assistant.delta')).toHaveLength(2);
    // The turn ends the stream; after it only the session's update and the turn's changed files (checkpoints) may come.
    const types = events.map((e) => e.type);
    expect(types).toContain('turn.ended');
    expect(types.slice(types.indexOf('turn.ended') + 1).every((t) => t === 'session.updated' || t === 'turn.changes')).toBe(true);
    expect(events.every((e, i) => i === 0 || e.seq === events[i - 1]!.seq + 1)).toBe(true);
  });

  it("streams a sub-agent's events tagged with its agent id, and waits for a background one", async () => {
    server.enqueue(
      {
        chunks: [
          {
            toolCall: { name: 'Agent', args: JSON.stringify({ description: 'look', prompt: 'CLI-SUB: look', subagent_type: 'plan', run_in_background: true }) },
          },
          { finish: 'tool_calls' },
        ],
      },
      { chunks: [{ text: 'started' }, { finish: 'stop' }] },
      { chunks: [{ text: 'The parent read the notification.' }, { finish: 'stop' }] },
    );
    server.route('CLI-SUB', { chunks: [{ text: `Sub-agent answer. ${'Details follow. '.repeat(20)}` }, { finish: 'stop' }], delayMs: 20 });
    const result = await cli(['run', ...provider(), '--output-format', 'stream-json', 'go']);
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; agentId?: string; event?: { type: string; text?: string } });
    const tagged = events.filter((e) => e.type === 'agent.event');
    expect(tagged.length).toBeGreaterThan(2);
    expect(tagged.every((e) => /^a[0-9a-z]{8}$/.test(e.agentId!))).toBe(true);
    expect(tagged.some((e) => e.event!.type === 'assistant.delta' && e.event!.text!.includes('Sub-agent answer'))).toBe(true);
    // deft run waited for the background sub-agent and let the parent react to it.
    expect(events.filter((e) => e.type === 'agent.updated').length).toBe(2);
    expect(server.requests.some((r) => JSON.stringify(r.body.messages).includes('Sub-agent answer'))).toBe(true);
    expect(events.filter((e) => e.type === 'turn.started')).toHaveLength(2);
  });

  it('takes the provider from DEFT_* variables, with flags winning', async () => {
    server.enqueue({ chunks: [{ text: 'env ok' }, { finish: 'stop' }] });
    const result = await cli(['run', '--model', 'flag-model', 'hi'], { DEFT_BASE_URL: server.baseUrl, DEFT_MODEL: 'env-model', DEFT_API_KEY: 'env-key' });
    expect(result.code).toBe(0);
    expect(server.requests[0]!.body.model).toBe('flag-model');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer env-key');
  });

  it('exits 1 with the message on stderr when the provider fails', async () => {
    server.enqueue({ status: 401, body: '{"error":{"message":"nope"}}' });
    const result = await cli(['run', ...provider(), 'hi']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('The API key was rejected');
    expect(result.stdout).toBe('');
  });

  it('exits 2 on usage errors', async () => {
    expect((await cli(['run'])).code).toBe(2);
    expect((await cli(['run', '--bogus', 'x'])).code).toBe(2);
    expect((await cli(['run', '--output-format', 'xml', ...provider(), 'x'])).stderr).toContain('--output-format must be one of text, stream-json');
    expect((await cli(['run', '--permission-mode', 'maybe', ...provider(), 'x'])).code).toBe(2);
    expect((await cli(['run', '--max-steps', '0', ...provider(), 'x'])).code).toBe(2);
    expect((await cli(['run', 'hi'])).stderr).toContain('no model is configured');
    expect((await cli(['run', '--workspace', '/no/such/dir', ...provider(), 'x'])).stderr).toContain('does not exist');
    expect((await cli(['run', '--session', 'nope', ...provider(), 'x'])).code).toBe(2);
    expect((await cli(['walk', 'x'])).code).toBe(2);
  });

  it('resumes the latest session with --continue and a named one with --session', async () => {
    server.enqueue({ chunks: [{ text: 'one' }, { finish: 'stop' }] });
    const first = await cli(['run', ...provider(), '--output-format', 'stream-json', 'first']);
    const sessionId = (JSON.parse(first.stdout.split('\n')[0]!) as { sessionId: string }).sessionId;
    server.enqueue({ chunks: [{ text: 'two' }, { finish: 'stop' }] });
    await cli(['run', ...provider(), '--continue', 'second']);
    expect(withoutReminders(server.requests[1]!.body.messages.slice(1)).map((m) => m.content)).toEqual(['first', 'one', 'second']);
    server.enqueue({ chunks: [{ text: 'three' }, { finish: 'stop' }] });
    await cli(['run', ...provider(), '--session', sessionId, 'third']);
    expect(withoutReminders(server.requests[2]!.body.messages.slice(1)).map((m) => m.content)).toEqual(['first', 'one', 'second', 'two', 'third']);
    // Each run resumes the same prefix: the request starts with the previous one, byte for byte.
    expect(prefixBreaks(server.requests)).toEqual([]);
  });

  it('warns on stderr about unreadable lines in the log of a resumed session, and still runs', async () => {
    server.enqueue({ chunks: [{ text: 'one' }, { finish: 'stop' }] });
    const first = await cli(['run', ...provider(), '--output-format', 'stream-json', 'first']);
    const sessionId = (JSON.parse(first.stdout.split('\n')[0]!) as { sessionId: string }).sessionId;
    const log = join(workspaceSessionsDir(home, workspace), sessionId, LOG_FILE);
    const lines = (await readFile(log, 'utf8')).split('\n');
    lines.splice(2, 0, '{not json');
    await writeFile(log, lines.join('\n'));
    for (const resume of [['--session', sessionId], ['--continue']]) {
      server.enqueue({ chunks: [{ text: 'again' }, { finish: 'stop' }] });
      const resumed = await cli(['run', ...provider(), ...resume, 'next']);
      expect(resumed).toMatchObject({ code: 0, stdout: 'again\n' });
      expect(resumed.stderr).toBe('deft: warning: Line 3 of the session log is not valid JSON and was skipped.\n');
    }
  });

  it('--skills-dir replaces the workspace and user skill folders (built-ins stay)', async () => {
    await put(workspace, '.deft/skills/from-workspace/SKILL.md', skillMd('from-workspace'));
    await put(workspace, 'elsewhere/only-these/SKILL.md', skillMd('only-these'));
    server.enqueue({ chunks: [{ text: 'ok' }, { finish: 'stop' }] }, { chunks: [{ text: 'ok' }, { finish: 'stop' }] });
    expect((await cli(['run', ...provider(), '--skills-dir', 'elsewhere', 'x'])).code).toBe(0);
    const listing = reminders(server.requests[0]!.body.messages).join('\n');
    expect(listing).toContain('- only-these: The only-these skill.');
    expect(listing).not.toContain('from-workspace');
    expect(listing).toContain('### Built-in');
    await cli(['run', ...provider(), 'x']);
    expect(reminders(server.requests[1]!.body.messages).join('\n')).toContain('- from-workspace:');
    expect((await cli(['run', ...provider(), '--skills-dir', 'missing', 'x'])).stderr).toContain(`--skills-dir ${workspace}/missing is not a folder`);
  });

  it('stops after --max-steps', async () => {
    server.fallback = () => ({ chunks: [{ toolCall: { name: 'Echo', args: '{"text":"again"}' } }, { finish: 'tool_calls' }] });
    const result = await cli(['run', ...provider(), '--max-steps', '1', 'loop']);
    expect(server.requests).toHaveLength(1);
    expect(result.stderr).toContain('--max-steps');
    expect(result.code).toBe(4);
  });

  it('waits for a background task the agent started, and prints its answer to the notification', async () => {
    // The job ends only once the request that ends the turn has gone out (it waits for a file the mock
    // writes then), so the notification cannot reach that request, however slow the machine.
    const bash = { command: 'while [ ! -f go ]; do sleep 0.05; done; echo task-output-here', run_in_background: true, description: 'short job' };
    server.enqueue({ chunks: [{ toolCall: { name: 'Bash', args: JSON.stringify(bash) } }, { finish: 'tool_calls' }] });
    server.fallback = () => {
      if (server.requests.length === 2) {
        writeFileSync(join(workspace, 'go'), '');
        return { chunks: [{ text: 'Started it.' }, { finish: 'stop' }] };
      }
      return { chunks: [{ text: 'The job printed task-output-here.' }, { finish: 'stop' }] };
    };
    const result = await cli(['run', ...provider(), '--permission-mode', 'yolo', 'run the job']);
    expect(result).toMatchObject({ code: 0, stdout: 'The job printed task-output-here.\n' });
    expect(server.requests).toHaveLength(3);
    expect(JSON.stringify(server.requests[2]!.body.messages.slice(-2))).toContain('task-output-here');
  });

  it('Ctrl-C while waiting for background work stops it and exits 130', async () => {
    const marker = `deft-cli-wait-${process.pid}-${Date.now()}`;
    const bash = { command: `sleep 30 # ${marker}`, run_in_background: true, description: 'long job' };
    server.enqueue(
      { chunks: [{ toolCall: { name: 'Bash', args: JSON.stringify(bash) } }, { finish: 'tool_calls' }] },
      { chunks: [{ text: 'Started it.' }, { finish: 'stop' }] },
    );
    const interrupt: { fire?: () => void } = {};
    const running = cli(['run', ...provider(), '--permission-mode', 'yolo', 'run the long job'], {}, interrupt);
    await vi.waitFor(() => expect(server.requests).toHaveLength(2), { timeout: 5_000 });
    await new Promise((r) => setTimeout(r, 200));
    interrupt.fire!();
    const result = await running;
    expect(result.code).toBe(130);
    expect(result.stdout).toBe('Started it.\n');
    expect(result.stderr).toContain('interrupted');
    const left = execFileSync('ps', ['-eo', 'args'])
      .toString()
      .split('\n')
      .filter((l) => l.includes(marker));
    expect(left).toEqual([]);
  });

  it('keeps going while a goal is active, until the model marks it complete', async () => {
    server.enqueue(
      { chunks: [{ toolCall: { name: 'CreateGoal', args: '{"objective":"tidy the notes"}' } }, { finish: 'tool_calls' }] },
      { chunks: [{ text: 'Goal set.' }, { finish: 'stop' }] },
      { chunks: [{ toolCall: { name: 'UpdateGoal', args: '{"status":"complete","note":"All tidy."}' } }, { finish: 'tool_calls' }] },
    );
    // UpdateGoal ends the goal's last turn: its note is what the run prints.
    const result = await cli(['run', ...provider(), '--permission-mode', 'yolo', 'tidy the notes']);
    expect(result).toMatchObject({ code: 0, stdout: 'Goal complete: All tidy.\n' });
    expect(server.requests).toHaveLength(3);
    expect(JSON.stringify(server.requests[2]!.body.messages.at(-1))).toContain('goal-continuation');
  });
});

describe('deft run and the OS sandbox', () => {
  const bashCall = (command: string) => ({ chunks: [{ toolCall: { name: 'Bash', args: JSON.stringify({ command }) } }, { finish: 'tool_calls' as const }] });
  const started = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; display?: { sandboxed?: boolean } })
      .find((e) => e.type === 'tool.call.started');

  it('--sandbox takes on or off only', async () => {
    const result = await cli(['run', ...provider(), '--sandbox', 'maybe', 'hi']);
    expect(result).toMatchObject({ code: 2 });
    expect(result.stderr).toContain('--sandbox must be on or off');
  });

  it('--sandbox off runs commands outside the sandbox, without a warning', async () => {
    server.enqueue(bashCall('echo plain'), { chunks: [{ text: 'done' }, { finish: 'stop' }] });
    const result = await cli(['run', ...provider(), '--permission-mode', 'yolo', '--sandbox', 'off', '--output-format', 'stream-json', 'go']);
    expect(result.code).toBe(0);
    expect(started(result.stdout)?.display?.sandboxed).toBeFalsy();
    expect(result.stderr).not.toContain('OS sandbox');
  });

  it('warns on stderr where there is no OS sandbox, saying why and how to install one, once a command is about to run', async () => {
    server.enqueue({ chunks: [{ text: 'ok' }, { finish: 'stop' }] });
    let stderr = '';
    const noSandbox = { kind: null, reason: 'bubblewrap (bwrap) is not installed.', install: 'Install bubblewrap and socat.' } as const;
    // A run that starts no command says nothing about the sandbox (and never probes for it).
    expect(
      await runCli(['run', ...provider(), 'hi'], {
        stdout: () => undefined,
        stderr: (t) => (stderr += t),
        env: { DEFT_HOME: home },
        cwd: workspace,
        coreOptions: { retry: fastRetry, sandboxSupport: noSandbox },
      }),
    ).toBe(0);
    expect(stderr).not.toContain('OS sandbox');
    server.enqueue(bashCall('echo plain'), { chunks: [{ text: 'done' }, { finish: 'stop' }] });
    const code = await runCli(['run', ...provider(), '--permission-mode', 'yolo', 'hi'], {
      stdout: () => undefined,
      stderr: (t) => (stderr += t),
      env: { DEFT_HOME: home },
      cwd: workspace,
      coreOptions: { retry: fastRetry, sandboxSupport: noSandbox },
    });
    expect(code).toBe(0);
    expect(stderr).toContain(
      'deft: warning: commands run without the OS sandbox (no OS sandbox here: bubblewrap (bwrap) is not installed. Install bubblewrap and socat.)',
    );
  });
});
