import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer } from '../../../test-support/mock-model-server';
import { fastRetry, tempDir } from '../../../test-support/harness';
import { callChunk, textReply, toolStep } from '../../../test-support/mock-steps';
import { type CliIo, runCli } from './cli';

const TEST_SERVER = resolve(import.meta.dirname, '../../../test-support/mcp-test-server.mjs');
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
  const io: CliIo = { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: { DEFT_HOME: home, GREETING: 'hello' }, cwd: workspace, coreOptions: { retry: fastRetry } };
  return { code: await runCli(args, io), stdout, stderr };
}
const run = (...rest: string[]) => ['run', '--base-url', server.baseUrl, '--model', 'mock-model', '--permission-mode', 'yolo', ...rest];

describe('deft run with MCP servers', () => {
  it('--mcp-config adds servers (waited for before the prompt, ${VAR} expanded) and their tools work', async () => {
    const file = join(home, 'servers.json');
    await writeFile(file, JSON.stringify({ mcpServers: { t: { command: process.execPath, args: [TEST_SERVER], env: { MCP_TEST_STDERR: '${GREETING} from the server' } } } }));
    server.enqueue(toolStep(callChunk('mcp__t__echo', { text: 'cli' })), textReply('Done.'));
    const result = await cli(run('--mcp-config', file, 'go'));
    expect(result).toMatchObject({ code: 0, stdout: 'Done.\n' });
    expect(server.requests[0]!.body.tools!.some((t) => t.function.name === 'mcp__t__echo')).toBe(true);
    expect(server.requests[1]!.body.messages.at(-1)).toMatchObject({ role: 'tool', content: 'echo: cli' });
  });

  it('skips an untrusted workspace’s servers and says so on stderr; a missing --mcp-config file is a usage error', async () => {
    await writeFile(join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: { repo: { command: process.execPath, args: [TEST_SERVER] } } }));
    server.enqueue(textReply('Hi.'));
    const result = await cli(run('hello'));
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('MCP server "repo" from');
    expect(result.stderr).toContain('was not started: this folder is not trusted');
    expect(server.requests[0]!.body.tools!.some((t) => t.function.name.startsWith('mcp__'))).toBe(false);
    const missing = await cli(run('--mcp-config', 'nope.json', 'x'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--mcp-config ${join(workspace, 'nope.json')} is not a file`);
  });
});
