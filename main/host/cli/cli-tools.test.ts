import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { standInTools } from '#test-support/stand-in-tools';
import { fastRetry, tempDir } from '#test-support/harness';
import { runCli } from './cli';
import { toolRules } from './tool-rules';

// Issue 31: --allowed-tools / --disallowed-tools, and permission_denials in the json result.

let server: MockModelServer;
let workspace: string;
let home: string;
let ran: string[];

beforeEach(async () => {
  server = new MockModelServer();
  await server.start();
  workspace = await tempDir('deft-cli-tools-ws-');
  home = await tempDir('deft-cli-tools-home-');
  ran = [];
});
afterEach(() => server.close());

const call = (name: string, args: object) => ({ chunks: [{ toolCall: { name, args: JSON.stringify(args) } }, { finish: 'tool_calls' as const }] });
const done = { chunks: [{ text: 'Finished.' }, { finish: 'stop' as const }] };

async function run(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['run', '--base-url', server.baseUrl, '--model', 'm', '--output-format', 'json', ...args, 'go'], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { DEFT_HOME: home },
    cwd: workspace,
    coreOptions: { retry: fastRetry, tools: () => standInTools(ran) },
  });
  const toolMessages = server.requests.flatMap((r) => r.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content)));
  return { code, stderr, result: stdout ? (JSON.parse(stdout) as Record<string, unknown>) : {}, toolMessages };
}

describe('toolRules', () => {
  it('splits on commas and spaces outside parentheses, as Claude Code does', () => {
    expect(toolRules(['Read,Bash(git diff:*) Edit', 'mcp__github__get_issue'], '--allowed-tools')).toEqual([
      'Read',
      'Bash(git diff:*)',
      'Edit',
      'mcp__github__get_issue',
    ]);
    expect(toolRules(['Bash(npm run test, lint)'], 'x')).toEqual(['Bash(npm run test, lint)']);
    expect(() => toolRules(['Bash(git diff'], '--allowed-tools')).toThrow('--allowed-tools "Bash(git diff" is not a rule');
    expect(() => toolRules(['Wr$te'], '--disallowed-tools')).toThrow('is not a tool name');
  });
});

describe('deft run --allowed-tools', () => {
  it('runs an allowed tool without asking in ask mode; what it does not cover is still refused and listed in permission_denials', async () => {
    server.enqueue(call('Write', { path: 'a.txt', content: 'A' }), call('Bash', { command: 'git diff --stat' }), call('Bash', { command: 'git push' }), done);
    const result = await run('--allowed-tools', 'Write,Bash(git diff:*)');
    expect(result.code).toBe(0);
    expect(await readFile(join(workspace, 'a.txt'), 'utf8')).toBe('A');
    expect(ran).toEqual(['git diff --stat']);
    expect(result.toolMessages.at(-1)).toContain("rerun with --allowed-tools 'Bash(git push)'");
    const denials = result.result.permission_denials as Array<Record<string, unknown>>;
    expect(denials).toHaveLength(1);
    expect(denials[0]).toMatchObject({ tool_name: 'Bash', tool_input: { command: 'git push' } });
    expect(denials[0]!.tool_use_id).toMatch(/\S/);
  });

  it('never opens a protected path: an allowed Write still cannot touch .git/ headless', async () => {
    await mkdir(join(workspace, '.git'));
    server.enqueue(call('Write', { path: '.git/config', content: 'x' }), done);
    const result = await run('--allowed-tools', 'Write', '--permission-mode', 'yolo');
    await expect(readFile(join(workspace, '.git', 'config'))).rejects.toThrow();
    expect(result.toolMessages[0]).toContain('protected');
    expect(result.result.permission_denials).toHaveLength(1);
  });
});

describe('deft run --disallowed-tools', () => {
  it('a bare name is not offered to the model at all; a call to it anyway is refused', async () => {
    server.enqueue(call('Write', { path: 'a.txt', content: 'A' }), done);
    const result = await run('--disallowed-tools', 'Write', '--permission-mode', 'yolo');
    const offered = server.requests[0]!.body.tools?.map((t) => t.function.name) ?? [];
    expect(offered).toContain('Bash');
    expect(offered).not.toContain('Write');
    expect(result.toolMessages[0]).toContain('does not exist');
    await expect(readFile(join(workspace, 'a.txt'))).rejects.toThrow();
  });

  it('a rule with an argument refuses the calls it matches, even in yolo and over --allowed-tools', async () => {
    server.enqueue(call('Bash', { command: 'rm -f a.txt' }), call('Bash', { command: 'ls' }), done);
    const result = await run('--permission-mode', 'yolo', '--allowed-tools', 'Bash', '--disallowedTools', 'Bash(rm:*)');
    expect(server.requests[0]!.body.tools?.map((t) => t.function.name)).toContain('Bash');
    expect(ran).toEqual(['ls']);
    expect(result.toolMessages[0]).toContain('blocked by the deny rule "Bash(rm:*)" in --disallowed-tools');
    expect(result.result.permission_denials).toMatchObject([{ tool_name: 'Bash', tool_input: { command: 'rm -f a.txt' } }]);
  });

  it('a rule that does not parse is a usage error (exit 2), before the model is asked', async () => {
    const result = await run('--disallowed-tools', 'Bash(rm');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--disallowed-tools "Bash(rm" is not a rule');
    expect(server.requests).toHaveLength(0);
  });
});
