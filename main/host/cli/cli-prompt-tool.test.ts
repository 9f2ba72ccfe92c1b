import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { standInTools } from '#test-support/stand-in-tools';
import { fastRetry, tempDir } from '#test-support/harness';
import { runCli } from './cli';

// Issue 31: deft run --permission-prompt-tool — an MCP tool answers the approvals, failing closed.

const APPROVER = resolve(import.meta.dirname, '../../../test-support/mcp-approver-server.mjs');
let server: MockModelServer;
let workspace: string;
let home: string;

beforeEach(async () => {
  server = new MockModelServer();
  await server.start();
  workspace = await tempDir('deft-cli-prompt-ws-');
  home = await tempDir('deft-cli-prompt-home-');
});
afterEach(() => server.close());

const write = (path: string, content: string) => ({
  chunks: [{ toolCall: { name: 'Write', args: JSON.stringify({ path, content }) } }, { finish: 'tool_calls' as const }],
});

async function run(tool: string, ...steps: object[]) {
  const config = join(home, 'servers.json');
  await writeFile(config, JSON.stringify({ mcpServers: { approver: { command: process.execPath, args: [APPROVER] } } }));
  server.enqueue(...(steps as never[]), { chunks: [{ text: 'Finished.' }, { finish: 'stop' }] });
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    ['run', '--base-url', server.baseUrl, '--model', 'm', '--output-format', 'json', '--mcp-config', config, '--permission-prompt-tool', tool, 'go'],
    {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      env: { DEFT_HOME: home },
      cwd: workspace,
      coreOptions: { retry: fastRetry, tools: () => standInTools() },
    },
  );
  const tools = (server.requests.at(-1)?.body.messages ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content));
  return { code, stderr, tools, result: stdout ? (JSON.parse(stdout) as Record<string, unknown>) : {} };
}

const read = (name: string) => readFile(join(workspace, name), 'utf8').catch(() => null);

describe('deft run --permission-prompt-tool', () => {
  it('allow runs the call (as an approval once); deny refuses it with the tool’s message; the tool is not offered to the model', async () => {
    const result = await run('mcp__approver__approve', write('a.txt', 'allow'), write('b.txt', 'same'), write('c.txt', 'deny'));
    expect(result.code).toBe(0);
    expect(await read('a.txt')).toBe('allow');
    expect(await read('b.txt')).toBe('same');
    expect(await read('c.txt')).toBeNull();
    expect(result.tools[2]).toContain('the approver said no');
    expect(server.requests[0]!.body.tools?.map((t) => t.function.name)).not.toContain('mcp__approver__approve');
    expect(result.result.permission_denials).toMatchObject([{ tool_name: 'Write', tool_input: { path: 'c.txt' } }]);
  });

  it('fails closed: a changed input (one escaping the workspace), bad JSON, an error result, another shape, a dead server', async () => {
    const result = await run(
      'mcp__approver__approve',
      write('d.txt', 'escape'),
      write('e.txt', 'garbage'),
      write('f.txt', 'error'),
      write('g.txt', 'whatever'),
      write('h.txt', 'crash'),
      write('i.txt', 'allow'),
    );
    expect(result.code).toBe(0);
    for (const name of ['d.txt', 'e.txt', 'f.txt', 'g.txt', 'h.txt', 'i.txt']) expect(await read(name), name).toBeNull();
    expect(await readFile(join(workspace, '..', 'outside.txt'), 'utf8').catch(() => null)).toBeNull();
    expect(result.tools[0]).toContain('changed input');
    expect(result.tools[1]).toContain('did not answer JSON');
    expect(result.tools[2]).toContain('returned an error');
    expect(result.tools[3]).toContain('neither');
    expect(result.tools[4]).toMatch(/failed|not available/);
    expect(result.tools[5]).toMatch(/failed|not available/);
    expect(result.result.permission_denials).toHaveLength(6);
  });

  it('a protected path is never put to the tool: it needs a person, so headless it is refused', async () => {
    const result = await run('mcp__approver__approve', write('.deft/settings.json', 'allow'));
    expect(await read('.deft/settings.json')).toBeNull();
    expect(result.tools[0]).toContain('Protected paths always need approval');
    expect(result.stderr).not.toContain('mcp__approver__approve:');
    expect(result.result.permission_denials).toHaveLength(1);
  });

  it('a name that is not mcp__SERVER__TOOL is a usage error; a tool no server offers refuses every approval', async () => {
    const missing = await run('mcp__approver__nope', write('a.txt', 'allow'));
    expect(await read('a.txt')).toBeNull();
    expect(missing.tools[0]).toContain('no connected MCP server offers mcp__approver__nope');
    const requests = server.requests.length;
    expect((await run('approve')).code).toBe(2);
    expect(server.requests).toHaveLength(requests);
  });
});
