import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { standInTools } from '#test-support/stand-in-tools';
import { fastRetry, tempDir } from '#test-support/harness';
import { runCli } from './cli';

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

async function run(...extra: string[]) {
  let stdout = '';
  let stderr = '';
  const ran: string[] = [];
  server.enqueue(
    { chunks: [{ toolCall: { name: 'Bash', args: '{"command":"rm -rf dist"}' } }, { finish: 'tool_calls' }] },
    { chunks: [{ text: 'Finished.' }, { finish: 'stop' }] },
  );
  const code = await runCli(['run', '--base-url', server.baseUrl, '--model', 'm', '--permission-mode', 'yolo', ...extra, 'clean'], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { DEFT_HOME: home },
    cwd: workspace,
    coreOptions: { retry: fastRetry, tools: () => standInTools(ran) },
  });
  return { code, stdout, stderr, ran };
}

const blockRm = { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo "no rm in CI" >&2; exit 2' }] }] };

describe('deft run with hooks', () => {
  it('runs the user’s hooks the same way: the block is said on stderr and carried by stream-json', async () => {
    await writeFile(join(home, 'settings.json'), JSON.stringify({ hooks: blockRm }));
    const text = await run();
    expect(text.ran).toEqual([]);
    expect(text.stderr).toContain('deft: PreToolUse hook "echo "no rm in CI" >&2; exit 2" blocked: no rm in CI');
    const json = await run('--output-format', 'stream-json');
    const events = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; result?: string });
    expect(events).toContainEqual(expect.objectContaining({ type: 'hook.ran', event: 'PreToolUse', result: 'blocked', message: 'no rm in CI' }));
  });

  it('does not run an untrusted folder’s hooks, and says so on stderr', async () => {
    await mkdir(join(workspace, '.deft'));
    await writeFile(join(workspace, '.deft/settings.json'), JSON.stringify({ hooks: blockRm }));
    const result = await run();
    expect(result.ran).toEqual(['rm -rf dist']);
    expect(result.stderr).toContain('this folder is not trusted, so its own hooks do not run: PreToolUse');
  });
});
