import { existsSync } from 'node:fs';
import { mkdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { fastRetry, tempDir } from '#test-support/harness';
import { type TestSshd, startSshd } from '#test-support/sshd';
import { type CliIo, runCli } from './cli';

// Issue 29: a remote folder's own MCP servers (its `.mcp.json`) start on the remote machine, through the
// Environment, once that folder is trusted and the server allowed — never on this machine. The sshd runs in a mount
// namespace of its own where `path` shows `there`: the server's wrapper records the namespace it ran in.

const TEST_SERVER = resolve(import.meta.dirname, '../../../test-support/mcp-test-server.mjs');
let sshd: TestSshd;
let server: MockModelServer;
let there: string;
let path: string;
let home: string;
let userHome: string;
let cwd: string;
let marks: string;
let hereNs: string;

beforeAll(async () => {
  there = await tempDir('deft-remote-mcp-there-');
  path = await tempDir('deft-remote-mcp-path-');
  const started = await startSshd({ binds: [{ from: there, to: path }] });
  if (!started) throw new Error('OpenSSH (openssh-server) is not installed: apt-get install openssh-server openssh-client');
  sshd = started;
  server = new MockModelServer();
  await server.start();
  hereNs = await readlink('/proc/self/ns/mnt');
}, 30_000);
afterAll(async () => {
  await server?.close();
  await sshd?.stop();
});

beforeEach(async () => {
  home = await tempDir('deft-remote-mcp-home-');
  userHome = await tempDir('deft-remote-mcp-user-');
  cwd = await tempDir('deft-remote-mcp-cwd-');
  marks = await tempDir('deft-remote-mcp-marks-');
  await mkdir(join(userHome, '.ssh'), { mode: 0o700 });
  await writeFile(join(userHome, '.ssh', 'id_ed25519'), sshd.privateKey, { mode: 0o600 });
  await writeFile(join(userHome, '.ssh', 'known_hosts'), await readFile(sshd.knownHosts));
  for (const dir of [there, path]) await rm(join(dir, 'mcp-ns.txt'), { force: true });
  const wrapper = `readlink /proc/self/ns/mnt > mcp-ns.txt; exec '${process.execPath}' '${TEST_SERVER}'`;
  await writeFile(join(there, '.mcp.json'), JSON.stringify({ mcpServers: { far: { command: 'sh', args: ['-c', wrapper] } } }));
  // This machine's folder at the same path: its server must never start.
  const local = `touch '${join(marks, 'local-server')}'; exec '${process.execPath}' '${TEST_SERVER}'`;
  await writeFile(
    join(path, '.mcp.json'),
    JSON.stringify({ mcpServers: { far: { command: 'sh', args: ['-c', local] }, near: { command: 'sh', args: ['-c', local] } } }),
  );
  // The user allows the server by name (headless: nobody to ask).
  await writeFile(join(home, 'settings.json'), JSON.stringify({ enabledMcpjsonServers: ['far', 'near'] }));
});

async function run(prompt: string, extra: string[] = []) {
  let stderr = '';
  const io: CliIo = {
    stdout: () => {},
    stderr: (t) => (stderr += t),
    env: { DEFT_HOME: home, HOME: userHome, USER: sshd.username },
    cwd,
    coreOptions: { retry: fastRetry },
  };
  const target = `${sshd.username}@127.0.0.1:${sshd.port}:${path}`;
  const code = await runCli(['run', '--base-url', server.baseUrl, '--model', 'm', '--permission-mode', 'yolo', '--remote', target, ...extra, prompt], io);
  return { code, stderr };
}

describe('deft run --remote: project MCP servers', () => {
  it('an untrusted remote folder’s server is not started, there or here', { timeout: 60_000 }, async () => {
    await writeFile(join(home, 'trust.json'), JSON.stringify({ folders: { [path]: { trusted: true } } }));
    server.enqueue(textReply('Hi.'));
    const result = await run('hello');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('was not started: this folder is not trusted');
    expect(server.requests.at(-1)!.body.tools!.some((t) => t.function.name.startsWith('mcp__'))).toBe(false);
    expect(existsSync(join(there, 'mcp-ns.txt'))).toBe(false);
    expect(existsSync(join(marks, 'local-server'))).toBe(false);
  });

  it('a trusted remote folder’s server starts on the remote machine and its tool is called', { timeout: 60_000 }, async () => {
    const id = `ssh://${sshd.username}@127.0.0.1:${sshd.port}${path}`;
    await writeFile(join(home, 'trust.json'), JSON.stringify({ folders: { [id]: { trusted: true } } }));
    server.enqueue(toolStep(callChunk('mcp__far__echo', { text: 'over ssh' })), textReply('Done.'));
    const result = await run('go');
    expect(result.code).toBe(0);
    const last = server.requests.at(-1)!.body;
    expect(last.messages.at(-1)).toMatchObject({ role: 'tool', content: 'echo: over ssh' });
    // Only the remote folder's servers: this machine's folder of the same path defines `near`, never seen.
    expect(last.tools!.some((t) => t.function.name.startsWith('mcp__near__'))).toBe(false);
    expect((await readFile(join(there, 'mcp-ns.txt'), 'utf8')).trim()).not.toBe(hereNs);
    expect(existsSync(join(path, 'mcp-ns.txt'))).toBe(false);
    expect(existsSync(join(marks, 'local-server'))).toBe(false);
  });

  it('--mcp-config servers run on this machine; --mcp-server allows the remote folder’s for the run', { timeout: 60_000 }, async () => {
    const id = `ssh://${sshd.username}@127.0.0.1:${sshd.port}${path}`;
    await writeFile(join(home, 'trust.json'), JSON.stringify({ folders: { [id]: { trusted: true } } }));
    await writeFile(join(home, 'settings.json'), '{}');
    const config = join(cwd, 'mine.json');
    // It reads this machine's folder at `path` (whose .mcp.json names `near`), which the remote machine shows as `there`.
    const mine = `cat '${join(path, '.mcp.json')}' > '${join(marks, 'mine-sees.txt')}'; exec '${process.execPath}' '${TEST_SERVER}'`;
    await writeFile(config, JSON.stringify({ mcpServers: { mine: { command: 'sh', args: ['-c', mine] } } }));
    server.enqueue(toolStep(callChunk('mcp__mine__echo', { text: 'here' }), callChunk('mcp__far__echo', { text: 'there' })), textReply('Done.'));
    const result = await run('go', ['--mcp-config', config, '--mcp-server', 'far']);
    expect(result.code).toBe(0);
    const tools = server.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool')
      .map((m) => m.content);
    expect(tools).toEqual(['echo: here', 'echo: there']);
    expect(await readFile(join(marks, 'mine-sees.txt'), 'utf8')).toContain('"near"');
    expect((await readFile(join(there, 'mcp-ns.txt'), 'utf8')).trim()).not.toBe(hereNs);
    expect(existsSync(join(marks, 'local-server'))).toBe(false);
  });
});
