import { execFileSync } from 'node:child_process';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer, textChunks } from '#test-support/mock-model-server';
import { fastRetry, tempDir } from '#test-support/harness';
import { type CliIo, runCli } from './cli';

const TEST_SERVER = resolve(import.meta.dirname, '../../../test-support/mcp-test-server.mjs');
let server: MockModelServer;
let workspace: string;
let home: string;
let market: string;
let outside: string;

async function put(root: string, path: string, text: string) {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), text);
}

async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { DEFT_HOME: home },
    cwd: workspace,
    coreOptions: { retry: fastRetry },
  };
  return { code: await runCli(args, io), stdout, stderr };
}
const run = (prompt: string) => cli(['run', '--base-url', server.baseUrl, '--model', 'mock-model', '--permission-mode', 'yolo', prompt]);

/** A marketplace in a git repository: a plugin with a skill, a command, an agent, a hook and an MCP server; two hostile entries. */
async function makeMarketplace(): Promise<void> {
  await put(
    market,
    '.claude-plugin/marketplace.json',
    JSON.stringify({
      name: 'acme',
      owner: { name: 'Acme' },
      plugins: [
        { name: 'tools', source: './plugins/tools', description: 'Acme tools', version: '1.0.0' },
        { name: 'escape', source: '../../etc' },
        { name: 'linky', source: './plugins/linky' },
        { name: 'other', source: './plugins/other' },
      ],
    }),
  );
  const p = 'plugins/tools';
  await put(
    market,
    `${p}/.claude-plugin/plugin.json`,
    JSON.stringify({ name: 'tools', version: '1.0.0', description: 'Acme tools', author: { name: 'Acme' } }),
  );
  await put(market, `${p}/skills/greet/SKILL.md`, '---\nname: greet\ndescription: Greets the user in the acme way.\n---\nSay hello the acme way.');
  await put(market, `${p}/commands/shout.md`, '---\ndescription: Shout something\n---\nShout $1 loudly.');
  await put(market, `${p}/agents/helper.md`, '---\nname: acme-helper\ndescription: Helps with acme things.\n---\nYou help.');
  await put(
    market,
    `${p}/hooks/hooks.json`,
    JSON.stringify({
      hooks: {
        UserPromptSubmit: [{ hooks: [{ type: 'command', command: `echo "$(cat \${CLAUDE_PLUGIN_ROOT}/marker-text)" > ${join(outside, 'hook-ran')}` }] }],
      },
    }),
  );
  await put(market, `${p}/marker-text`, 'from the plugin');
  await put(
    market,
    `${p}/.mcp.json`,
    JSON.stringify({ mcpServers: { acme: { command: process.execPath, args: [TEST_SERVER], env: { MCP_TEST_CWD: '${CLAUDE_PLUGIN_ROOT}/server-cwd' } } } }),
  );
  await put(market, 'plugins/linky/.claude-plugin/plugin.json', JSON.stringify({ name: 'linky' }));
  await put(outside, 'secret.txt', 'not yours');
  await mkdir(join(market, 'plugins/linky/skills/x'), { recursive: true });
  await symlink(join(outside, 'secret.txt'), join(market, 'plugins/linky/skills/x/SKILL.md'));
  await put(market, 'plugins/other/.claude-plugin/plugin.json', JSON.stringify({ name: 'other' }));
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: market, stdio: 'pipe' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'marketplace');
}

beforeEach(async () => {
  server = new MockModelServer();
  await server.start();
  workspace = await tempDir('deft-cli-ws-');
  home = await tempDir('deft-cli-home-');
  market = await tempDir('deft-market-');
  outside = await tempDir('deft-outside-');
  await makeMarketplace();
});
afterEach(() => server.close());

describe('deft plugin: marketplaces and plugins', () => {
  it('add a git marketplace → install → its skill, command, agent, hook and MCP server work → disable → none do', { timeout: 60_000 }, async () => {
    const added = await cli(['plugin', 'marketplace', 'add', pathToFileURL(market).href]);
    expect(added).toMatchObject({ code: 0 });
    expect(added.stdout).toContain('Added marketplace acme (4 plugins: tools, escape, linky, other)');
    const listed = await cli(['plugin', 'marketplace', 'list']);
    expect(listed.stdout).toContain('skills: greet');
    expect(listed.stdout).toContain('commands: /shout');
    expect(listed.stdout).toContain('hooks (run code): UserPromptSubmit');
    expect(listed.stdout).toContain('MCP servers (run code): acme');

    const installed = await cli(['plugin', 'install', 'tools@acme']);
    expect(installed).toMatchObject({ code: 0 });
    expect(installed.stdout).toContain(`Installed tools@acme 1.0.0 (enabled) in ${join(home, 'plugins', 'acme', 'tools')}`);
    const registry = JSON.parse(await readFile(join(home, 'plugins.json'), 'utf8')) as { plugins: Record<string, { enabled: boolean; version: string }> };
    expect(registry.plugins['tools@acme']).toMatchObject({ enabled: true, version: '1.0.0' });

    server.enqueue({ chunks: [...textChunks('ok'), { finish: 'stop' }] });
    const on = await run('/shout hey');
    expect(on.code).toBe(0);
    const request = JSON.stringify(server.requests.at(-1)!.body);
    expect(request).toContain('Shout hey loudly.');
    expect(request).toContain('<plugin-instructions>This skill comes from a plugin the user installed.');
    expect(request).toContain('greet: Greets the user in the acme way.');
    expect(request).toContain('acme-helper');
    expect(server.requests.at(-1)!.body.tools!.some((t) => t.function.name === 'mcp__acme__echo')).toBe(true);
    // The hook ran as the user (it wrote outside the workspace), with ${CLAUDE_PLUGIN_ROOT} expanded.
    expect((await readFile(join(outside, 'hook-ran'), 'utf8')).trim()).toBe('from the plugin');
    // The server started in a neutral folder (Deft's home), not the workspace.
    expect(JSON.parse(await readFile(join(home, 'plugins/acme/tools/server-cwd'), 'utf8'))).toMatchObject({ cwd: home });

    expect(await cli(['plugin', 'disable', 'tools'])).toMatchObject({ code: 0, stdout: 'tools@acme is disabled.\n' });
    await writeFile(join(outside, 'hook-ran'), '');
    server.enqueue({ chunks: [...textChunks('ok'), { finish: 'stop' }] });
    await run('/shout hey');
    const off = JSON.stringify(server.requests.at(-1)!.body);
    expect(off).not.toContain('Shout hey loudly.');
    expect(off).not.toContain('Greets the user in the acme way.');
    expect(off).not.toContain('acme-helper');
    expect(off).not.toContain('mcp__acme__echo');
    expect(await readFile(join(outside, 'hook-ran'), 'utf8')).toBe('');

    expect(await cli(['plugin', 'remove', 'tools@acme'])).toMatchObject({ code: 0 });
    expect(existsSync(join(home, 'plugins/acme/tools'))).toBe(false);
  });

  it('refuses hostile plugins: a source outside the marketplace, a symbolic link out of it, a bad manifest, a bad name', async () => {
    expect((await cli(['plugin', 'marketplace', 'add', market])).code).toBe(0);
    const escape = await cli(['plugin', 'install', 'escape@acme']);
    expect(escape.code).toBe(1);
    expect(escape.stderr).toContain(`its source "../../etc" is outside the marketplace's folder; refused`);
    const linky = await cli(['plugin', 'install', 'linky@acme']);
    expect(linky.code).toBe(1);
    expect(linky.stderr).toContain('is a symbolic link that leads outside the plugin');
    expect(existsSync(join(home, 'plugins/acme/linky'))).toBe(false);
    const bad = await cli(['plugin', 'install', '../x@acme']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('is not NAME@MARKETPLACE');

    await writeFile(join(market, 'plugins/other/.claude-plugin/plugin.json'), '{"name": "other/../../x"}');
    const manifest = await cli(['plugin', 'install', 'other@acme']);
    expect(manifest.code).toBe(1);
    expect(manifest.stderr).toContain('plugin manifest:');
    expect(manifest.stderr).toContain('is not valid: name:');
    expect(JSON.parse(await readFile(join(home, 'plugins.json'), 'utf8'))).toMatchObject({ plugins: {} });
  });

  it("a plugin's skill whose name is taken stays usable as plugin:skill", async () => {
    expect((await cli(['plugin', 'marketplace', 'add', market])).code).toBe(0);
    expect((await cli(['plugin', 'install', 'tools@acme'])).code).toBe(0);
    await put(home, 'skills/greet/SKILL.md', '---\nname: greet\ndescription: My own greeting.\n---\nHi.');
    server.enqueue({ chunks: [...textChunks('ok'), { finish: 'stop' }] });
    expect((await run('hello')).code).toBe(0);
    const request = JSON.stringify(server.requests.at(-1)!.body);
    expect(request).toContain('greet: My own greeting.');
    expect(request).toContain('tools:greet: Greets the user in the acme way.');
  });

  it("a workspace's suggested plugins are listed, never installed by themselves", async () => {
    expect((await cli(['plugin', 'marketplace', 'add', market])).code).toBe(0);
    await put(workspace, '.deft/settings.json', JSON.stringify({ enabledPlugins: { 'other@acme': true } }));
    server.enqueue({ chunks: [...textChunks('ok'), { finish: 'stop' }] });
    expect((await run('hello')).code).toBe(0);
    const listed = await cli(['plugin', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toMatchObject({ installed: [], suggested: ['other@acme'] });
    expect(existsSync(join(home, 'plugins/acme/other'))).toBe(false);
    expect((await cli(['plugin', 'list'])).stdout).toContain('This workspace suggests: other@acme (not installed');
  });
});
