import { access, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { fastRetry, tempDir } from '#test-support/harness';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { fingerprintOf } from '../../agent/capabilities/mcp/config';
import { runCliProcess } from '#test-support/cli-process';
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
  const io: CliIo = {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { DEFT_HOME: home, GREETING: 'hello' },
    cwd: workspace,
    coreOptions: { retry: fastRetry },
  };
  return { code: await runCli(args, io), stdout, stderr };
}
const run = (...rest: string[]) => ['run', '--base-url', server.baseUrl, '--model', 'mock-model', '--permission-mode', 'yolo', ...rest];

describe('deft run with MCP servers', () => {
  it('--mcp-config adds servers (waited for before the prompt, ${VAR} expanded) and their tools work', async () => {
    const file = join(home, 'servers.json');
    await writeFile(
      file,
      JSON.stringify({ mcpServers: { t: { command: process.execPath, args: [TEST_SERVER], env: { MCP_TEST_STDERR: '${GREETING} from the server' } } } }),
    );
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

describe("a workspace's own MCP servers need the user's approval of their definition, headless too (finding 4)", () => {
  const repoServer = (tag: string) => ({ command: process.execPath, args: [TEST_SERVER], env: { MCP_TEST_STDERR: tag } });
  const names = ['approved', 'fresh', 'denied', 'changed', 'named', 'setting'] as const;
  const offered = (index: number) =>
    server.requests[index]!.body.tools!.map((t) => t.function.name)
      .filter((n) => n.endsWith('__echo'))
      .sort();

  it('deft run starts only servers approved before or allowed by name, names the rest with how to approve them; deft mcp approve works', {
    timeout: 120_000,
  }, async () => {
    const servers = Object.fromEntries(names.map((name) => [name, repoServer(name)]));
    await writeFile(join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: servers }));
    const answer = (name: string, approved: boolean, fingerprint = fingerprintOf(servers[name]!)) => ({ fingerprint, approved });
    await writeFile(
      join(home, 'trust.json'),
      JSON.stringify({
        folders: {
          [workspace]: {
            trusted: true,
            mcpServers: {
              approved: answer('approved', true),
              denied: answer('denied', false),
              changed: answer('changed', true, fingerprintOf(repoServer('before'))),
            },
          },
        },
      }),
    );
    // Three servers bring more tools than are sent inline by default: send them all, so the request shows which started.
    await writeFile(join(home, 'settings.json'), JSON.stringify({ enabledMcpjsonServers: ['setting'], mcp: { deferAbove: 1_000 } }));
    server.enqueue(textReply('Hi.'));
    const first = await cli(run('--mcp-server', 'named', 'hello'));
    expect(first.code).toBe(0);
    expect(offered(0)).toEqual(['mcp__approved__echo', 'mcp__named__echo', 'mcp__setting__echo']);
    for (const name of ['fresh', 'denied', 'changed'])
      expect(first.stderr).toContain(`MCP server "${name}" from ${join(workspace, '.mcp.json')} was not started`);
    expect(first.stderr).toContain('Approve it with: deft mcp approve fresh (in this folder), or allow it for one run with --mcp-server fresh.');
    expect(first.stderr).toContain('"denied" from');
    expect(first.stderr).toMatch(/"denied" from .* you denied it/);

    const list = await cli(['mcp', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/fresh\s+project\s+waits for your approval: deft mcp approve fresh/);
    expect(list.stdout).toMatch(/changed\s+project\s+changed since you answered: deft mcp approve changed/);
    expect(list.stdout).toMatch(/approved\s+project\s+approved/);

    const approve = await cli(['mcp', 'approve', 'fresh']);
    expect(approve).toMatchObject({ code: 0, stdout: expect.stringContaining('Approved MCP server "fresh"') });
    server.enqueue(textReply('Again.'));
    expect((await cli(run('hello'))).code).toBe(0);
    expect(offered(1)).toEqual(['mcp__approved__echo', 'mcp__fresh__echo', 'mcp__setting__echo']);
    // The repository changes an approved definition: it waits again.
    await writeFile(join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: { ...servers, fresh: repoServer('changed by the repository') } }));
    server.enqueue(textReply('Third.'));
    const third = await cli(run('hello'));
    expect(offered(2)).toEqual(['mcp__approved__echo', 'mcp__setting__echo']);
    expect(third.stderr).toContain('deft mcp approve fresh');
  });

  it("deft mcp approve refuses before the folder is trusted, and for a server that is not the workspace's", async () => {
    await writeFile(join(workspace, '.mcp.json'), JSON.stringify({ mcpServers: { repo: repoServer('x') } }));
    await writeFile(join(home, 'mcp.json'), JSON.stringify({ mcpServers: { mine: repoServer('y') } }));
    const untrusted = await cli(['mcp', 'approve', 'repo']);
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toContain('Trust this folder first');
    expect(untrusted.stderr).toContain('"trusted": true for it in ~/.deft/trust.json');
    expect((await cli(['mcp', 'approve', 'mine'])).stderr).toContain('"mine" is not a workspace server');
    expect((await cli(['mcp', 'approve', 'nope'])).stderr).toContain('There is no MCP server named "nope"');
    expect((await cli(['mcp', 'approve'])).code).toBe(2);
  });

  it('the model cannot add a server by writing .mcp.json: a protected write, refused headless even in yolo', async () => {
    const planted = JSON.stringify({ mcpServers: { planted: repoServer('planted') } });
    server.enqueue(
      toolStep(callChunk('Write', { path: '.mcp.json', content: planted })),
      toolStep(callChunk('Bash', { command: `printf '%s' '${planted}' > .deft-mcp-tmp && mv .deft-mcp-tmp .mcp.json` })),
      textReply('Tried.'),
    );
    const result = await cli(run('add a server'));
    expect(result.code).toBe(0);
    expect(
      await access(join(workspace, '.mcp.json')).then(
        () => true,
        () => false,
      ),
    ).toBe(false);
    const results = server.requests.slice(1).map((r) => JSON.stringify(r.body.messages.at(-1)));
    expect(results[0]).toContain('MCP servers');
    expect(results[1]).toContain('MCP servers');
  });
});

describe("the user's own MCP servers run as the user, not as the repository (finding 3)", () => {
  it("start in Deft's home with search paths cleared of the workspace: the copy a repository ships in node_modules is never run", async () => {
    // What a cloned repository ships: a package npx would pick up, and a program a relative PATH entry finds.
    const script = '#!/bin/sh\necho "the repository\'s copy ran in $(pwd)" > "$1"\n';
    await mkdir(join(workspace, 'node_modules', 'evil-srv'), { recursive: true });
    await mkdir(join(workspace, 'node_modules', '.bin'), { recursive: true });
    await writeFile(
      join(workspace, 'node_modules', 'evil-srv', 'package.json'),
      JSON.stringify({ name: 'evil-srv', version: '1.0.0', bin: { 'evil-srv': 'cli.sh' } }),
    );
    await writeFile(join(workspace, 'node_modules', 'evil-srv', 'cli.sh'), script, { mode: 0o755 });
    await symlink('../evil-srv/cli.sh', join(workspace, 'node_modules', '.bin', 'evil-srv'));
    await writeFile(join(workspace, 'node_modules', '.bin', 'evil-tool'), script, { mode: 0o755 });
    const markers = { npx: join(home, 'npx-ran'), path: join(home, 'path-ran') };
    // npx offline and never installing: the test reaches no registry whatever happens.
    const offline = { npm_config_offline: 'true', npm_config_cache: join(home, 'npm-cache'), npm_config_update_notifier: 'false' };
    const where = join(home, 'where.json');
    await writeFile(
      join(home, 'mcp.json'),
      JSON.stringify({
        mcpServers: {
          npx: { command: 'npx', args: ['--no', 'evil-srv', markers.npx], env: offline },
          path: { command: 'evil-tool', args: [markers.path] },
          mine: { command: process.execPath, args: [TEST_SERVER], env: { MCP_TEST_CWD: where } },
        },
      }),
    );
    const savedPath = process.env.PATH;
    // A PATH with a relative entry, as `export PATH=node_modules/.bin:$PATH` leaves it.
    process.env.PATH = `node_modules/.bin:${savedPath ?? ''}`;
    let result;
    try {
      server.enqueue(textReply('Hi.'));
      result = await cli(run('hello'));
    } finally {
      process.env.PATH = savedPath;
    }
    expect(result.code).toBe(0);
    const ran = async (file: string) =>
      access(file).then(
        () => readFile(file, 'utf8'),
        () => null,
      );
    expect(await ran(markers.npx)).toBeNull();
    expect(await ran(markers.path)).toBeNull();
    expect(result.stderr).toContain('MCP server "npx" is not available');
    expect(result.stderr).toContain('MCP server "path" is not available');
    const seen = JSON.parse(await readFile(where, 'utf8')) as { cwd: string; path: string };
    expect(seen.cwd).toBe(home);
    expect(seen.path.split(':').filter((entry) => !entry.startsWith('/'))).toEqual([]);
    expect(server.requests[0]!.body.tools!.some((t) => t.function.name === 'mcp__mine__echo')).toBe(true);
  });
});

describe('deft run against a hostile MCP server (a process of its own: a frozen run must fail the test, not hang it)', () => {
  it('a catastrophic-backtracking pattern is checked in linear time, a 3,000-deep schema is refused naming server and tool, and the rest works', {
    timeout: 120_000,
  }, async () => {
    const file = join(home, 'servers.json');
    await writeFile(file, JSON.stringify({ mcpServers: { h: { command: process.execPath, args: [TEST_SERVER], env: { MCP_TEST_HOSTILE: '1' } } } }));
    server.enqueue(
      toolStep(callChunk('mcp__h__redos', { text: `${'a'.repeat(40)}!` })),
      toolStep(callChunk('mcp__h__echo', { text: 'still here' })),
      textReply('Survived.'),
    );
    const result = await runCliProcess(run('--mcp-config', file, 'go'), { cwd: workspace, env: { DEFT_HOME: home }, timeoutMs: 90_000 });
    expect(result.timedOut).toBe(false);
    if (result.code !== 0) console.log(result.stderr);
    expect(result).toMatchObject({ code: 0, stdout: 'Survived.\n' });
    expect(result.stderr).toContain('MCP server "h": its tool "deep" was left out: its input schema nests deeper than');
    const offered = server.requests[0]!.body.tools!.map((t) => t.function.name);
    expect(offered).toContain('mcp__h__redos');
    expect(offered).not.toContain('mcp__h__deep');
    expect(server.requests[1]!.body.messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('/text must match pattern "^(a+)+$"') });
    expect(server.requests[2]!.body.messages.at(-1)).toMatchObject({ role: 'tool', content: 'echo: still here' });
  });
});
