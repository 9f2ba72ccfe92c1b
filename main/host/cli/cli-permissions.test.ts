import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { standInTools } from '#test-support/stand-in-tools';
import { fastRetry, tempDir } from '#test-support/harness';
import { runCli } from './cli';
import { reminders } from '#test-support/mock-steps';

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
  let stderr = '';
  server.enqueue(
    { chunks: [{ toolCall: { name: 'Write', args: '{"path":"out.txt","content":"hi"}' } }, { finish: 'tool_calls' }] },
    { chunks: [{ text: 'Finished.' }, { finish: 'stop' }] },
  );
  const code = await runCli(['run', '--base-url', server.baseUrl, '--model', 'm', ...extra, 'write out.txt'], {
    stdout: () => {},
    stderr: (t) => (stderr += t),
    env: { DEFT_HOME: home },
    cwd: workspace,
    coreOptions: { retry: fastRetry, tools: () => standInTools() },
  });
  const tool = server.requests.at(-1)!.body.messages.find((m) => m.role === 'tool');
  return { code, stderr, tool: String(tool?.content) };
}

describe('deft run --permission-mode', () => {
  it('ask (the default) refuses a Write and names the rule that would allow it', async () => {
    const result = await run();
    expect(result.code).toBe(0);
    expect(result.tool).toContain(`"Write(${join(workspace, 'out.txt')})"`);
    await expect(readFile(join(workspace, 'out.txt'))).rejects.toThrow();
  });

  it('accept-edits lets the Write run', async () => {
    const result = await run('--permission-mode', 'accept-edits');
    expect(result.tool).toBe('Wrote out.txt (2 characters).');
    expect(await readFile(join(workspace, 'out.txt'), 'utf8')).toBe('hi');
  });

  it('tells the model the mode of the run', async () => {
    await run('--permission-mode', 'yolo');
    expect(reminders(server.requests[0]!.body.messages).join('\n')).toContain('Permission mode: yolo');
  });

  it('reports invalid rules on stderr with their file and rule', async () => {
    await mkdir(join(workspace, '.deft'), { recursive: true });
    await writeFile(join(workspace, '.deft', 'settings.json'), JSON.stringify({ permissions: { allow: ['Write(out.txt', 'Write(*.md)'] } }));
    const result = await run();
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(join(workspace, '.deft', 'settings.json'));
    expect(result.stderr).toContain('(rule: Write(out.txt)');
  });

  it('does not let an untrusted folder allow itself the Write, and says what it did not use', async () => {
    await mkdir(join(workspace, '.deft'), { recursive: true });
    const project = join(workspace, '.deft', 'settings.json');
    await writeFile(project, JSON.stringify({ permissions: { allow: ['Write(*)'], defaultMode: 'bypassPermissions' } }));
    const untrusted = await run();
    expect(untrusted.tool).toContain('Write needs approval');
    expect(untrusted.stderr).toContain(`this folder is not trusted`);
    expect(untrusted.stderr).toContain(`allow Write(*) (${project}); defaultMode yolo (${project})`);
    await writeFile(join(home, 'trust.json'), JSON.stringify({ folders: { [workspace]: { trusted: true } } }));
    const trusted = await run();
    expect(trusted.tool).toContain('Wrote out.txt');
    expect(trusted.stderr).toBe('');
  });
});
