import { existsSync } from 'node:fs';
import { readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { remoteCliRig } from '#test-support/remote-cli';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';

// Issue 29: a remote folder's own MCP servers (its `.mcp.json`) start on the remote machine, through the
// Environment, once that folder is trusted and the server allowed — never on this machine. The sshd runs in a mount
// namespace of its own where `path` shows `there`: the server's wrapper records the namespace it ran in.

const TEST_SERVER = resolve(import.meta.dirname, '../../../test-support/mcp-test-server.mjs');
const rig = remoteCliRig('deft-remote-mcp');
let marks: string;
let hereNs: string;

beforeAll(async () => {
  hereNs = await readlink('/proc/self/ns/mnt');
});

beforeEach(async () => {
  marks = await tempDir('deft-remote-mcp-marks-');
  for (const dir of [rig.there, rig.path]) await rm(join(dir, 'mcp-ns.txt'), { force: true });
  const wrapper = `readlink /proc/self/ns/mnt > mcp-ns.txt; exec '${process.execPath}' '${TEST_SERVER}'`;
  await writeFile(join(rig.there, '.mcp.json'), JSON.stringify({ mcpServers: { far: { command: 'sh', args: ['-c', wrapper] } } }));
  // This machine's folder at the same path: its server must never start.
  const local = `touch '${join(marks, 'local-server')}'; exec '${process.execPath}' '${TEST_SERVER}'`;
  await writeFile(
    join(rig.path, '.mcp.json'),
    JSON.stringify({ mcpServers: { far: { command: 'sh', args: ['-c', local] }, near: { command: 'sh', args: ['-c', local] } } }),
  );
  // The user allows the server by name (headless: nobody to ask).
  await writeFile(join(rig.home, 'settings.json'), JSON.stringify({ enabledMcpjsonServers: ['far', 'near'] }));
});

const run = (prompt: string, extra: string[] = []) => rig.run(prompt, { extra });

describe('deft run --remote: project MCP servers', () => {
  it('an untrusted remote folder’s server is not started, there or here', { timeout: 60_000 }, async () => {
    await writeFile(join(rig.home, 'trust.json'), JSON.stringify({ folders: { [rig.path]: { trusted: true } } }));
    rig.server.enqueue(textReply('Hi.'));
    const result = await run('hello');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('was not started: this folder is not trusted');
    expect(rig.server.requests.at(-1)!.body.tools!.some((t) => t.function.name.startsWith('mcp__'))).toBe(false);
    expect(existsSync(join(rig.there, 'mcp-ns.txt'))).toBe(false);
    expect(existsSync(join(marks, 'local-server'))).toBe(false);
  });

  it('a trusted remote folder’s server starts on the remote machine and its tool is called', { timeout: 60_000 }, async () => {
    await rig.trust();
    rig.server.enqueue(toolStep(callChunk('mcp__far__echo', { text: 'over ssh' })), textReply('Done.'));
    const result = await run('go');
    expect(result.code).toBe(0);
    const last = rig.server.requests.at(-1)!.body;
    expect(last.messages.at(-1)).toMatchObject({ role: 'tool', content: 'echo: over ssh' });
    // Only the remote folder's servers: this machine's folder of the same path defines `near`, never seen.
    expect(last.tools!.some((t) => t.function.name.startsWith('mcp__near__'))).toBe(false);
    expect((await readFile(join(rig.there, 'mcp-ns.txt'), 'utf8')).trim()).not.toBe(hereNs);
    expect(existsSync(join(rig.path, 'mcp-ns.txt'))).toBe(false);
    expect(existsSync(join(marks, 'local-server'))).toBe(false);
  });

  it('--mcp-config servers run on this machine; --mcp-server allows the remote folder’s for the run', { timeout: 60_000 }, async () => {
    await rig.trust();
    await writeFile(join(rig.home, 'settings.json'), '{}');
    const config = join(rig.cwd, 'mine.json');
    // It reads this machine's folder at `path` (whose .mcp.json names `near`), which the remote machine shows as `there`.
    const mine = `cat '${join(rig.path, '.mcp.json')}' > '${join(marks, 'mine-sees.txt')}'; exec '${process.execPath}' '${TEST_SERVER}'`;
    await writeFile(config, JSON.stringify({ mcpServers: { mine: { command: 'sh', args: ['-c', mine] } } }));
    rig.server.enqueue(toolStep(callChunk('mcp__mine__echo', { text: 'here' }), callChunk('mcp__far__echo', { text: 'there' })), textReply('Done.'));
    const result = await run('go', ['--mcp-config', config, '--mcp-server', 'far']);
    expect(result.code).toBe(0);
    const tools = rig.server.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool')
      .map((m) => m.content);
    expect(tools).toEqual(['echo: here', 'echo: there']);
    expect(await readFile(join(marks, 'mine-sees.txt'), 'utf8')).toContain('"near"');
    expect((await readFile(join(rig.there, 'mcp-ns.txt'), 'utf8')).trim()).not.toBe(hereNs);
    expect(existsSync(join(marks, 'local-server'))).toBe(false);
  });
});
