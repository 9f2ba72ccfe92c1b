import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpOverview, SessionEvent } from '#protocol';
import { defaultCapabilities } from '../../capabilities';
import { createHarness } from '#test-support/harness';
import { callChunk, textReply, toolMessages, toolStep } from '#test-support/mock-steps';
import { waitFor } from '#test-support/wait';
import { mcpCapability, withMcpOptions } from './capability';
import { cliHost, webHost } from '../../../host/hosts';

export const TEST_SERVER = resolve(import.meta.dirname, '../../../../test-support/mcp-test-server.mjs');
const OAUTH_SERVER = resolve(import.meta.dirname, '../../../../test-support/mcp-oauth-server.mjs');
type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

const fastRestarts = withMcpOptions(defaultCapabilities, { restartDelay: (n) => (n > 3 ? null : 50) });
const server = (env: Record<string, string> = {}, extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [TEST_SERVER], env, ...extra });

async function userServers(hh: Harness, servers: Record<string, unknown>): Promise<void> {
  await writeFile(join(hh.home, 'mcp.json'), JSON.stringify({ mcpServers: servers }));
}

async function overviewWhen(hh: Harness, check: (o: McpOverview) => boolean, timeoutMs = 15_000): Promise<McpOverview> {
  let latest: McpOverview | null = null;
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    latest = await hh.core.handlers.listMcpServers({});
    if (check(latest)) return latest;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`MCP servers never reached the expected state: ${JSON.stringify(latest, null, 2)}`);
}
const statusOf = (o: McpOverview, name: string) => o.servers.find((s) => s.name === name)?.status;

describe('MCP servers through the model', () => {
  it('runs a server’s prompt as a slash command: its arguments in order, the prompt it returns sent as the user’s message', async () => {
    h = await createHarness();
    await userServers(h, { test: server() });
    const overview = await overviewWhen(h, (o) => statusOf(o, 'test') === 'connected');
    expect(overview.servers[0]!.prompts).toEqual([
      {
        command: 'mcp__test__review',
        serverPrompt: 'review',
        description: 'Review a file.',
        arguments: [
          { name: 'file', description: 'The file to review', required: true },
          { name: 'focus', description: 'What to look at' },
        ],
      },
    ]);
    h.server.enqueue(textReply('reviewed'));
    const { turnId } = await h.core.handlers.runMcpPrompt({
      sessionId: h.session.id,
      command: 'mcp__test__review',
      args: 'src/app.ts error handling and retries',
    });
    await h.core.turnDone(h.session.id);
    expect(h.sessionEvents('turn.started').at(-1)).toMatchObject({ turnId, text: '/mcp__test__review src/app.ts error handling and retries' });
    expect(h.server.requests.at(-1)!.body.messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'Review src/app.ts with a focus on error handling and retries.',
    });
    // A required argument missing, an unknown prompt: clear errors, nothing sent.
    const sent = h.server.requests.length;
    await expect(h.core.handlers.runMcpPrompt({ sessionId: h.session.id, command: 'mcp__test__review' })).rejects.toThrow(
      '/mcp__test__review <file> [focus]: file is required.',
    );
    await expect(h.core.handlers.runMcpPrompt({ sessionId: h.session.id, command: 'mcp__test__nope', args: 'x' })).rejects.toMatchObject({ code: 'not_found' });
    expect(h.server.requests.length).toBe(sent);
  });

  it('lists a stdio server’s tools under mcp__ names, sends their schemas, and round-trips calls (text, image, resource, structured, error)', async () => {
    h = await createHarness();
    await userServers(h, { test: server() });
    const overview = await overviewWhen(h, (o) => statusOf(o, 'test') === 'connected');
    const names = overview.servers[0]!.tools.map((t) => t.name);
    expect(names).toContain('mcp__test__echo');
    expect(names).toContain('mcp__test__odd_name_with_spaces');
    const long = names.find((n) => n.startsWith('mcp__test__a_tool_with'))!;
    expect(long).toHaveLength(64);
    expect(overview.servers[0]!.tools.find((t) => t.name === 'mcp__test__echo')).toMatchObject({ description: 'Echo the text back.', deferred: false });

    h.server.enqueue(
      toolStep(
        callChunk('mcp__test__echo', { text: 'hi' }),
        callChunk('mcp__test__structured', { n: 3 }),
        callChunk('mcp__test__resource', {}),
        callChunk('mcp__test__fail', {}),
      ),
      textReply('done'),
    );
    await h.run('go');
    const sent = h.server.requests[0]!.body.tools!.find((t) => t.function.name === 'mcp__test__echo')!;
    expect(sent.function.parameters).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    expect(sent.function.description).toContain('Echo the text back.');
    const results = toolMessages(h);
    expect(results[0]).toBe('echo: hi');
    expect(results[1]).toContain('"squared": 9');
    expect(results[2]).toContain('Resource file:///notes.txt (text/plain):\nthe notes');
    expect(results[2]).toContain('Resource link: https://example.invalid/doc (doc)');
    expect(results[3]).toBe('ERROR: it went wrong');
    const card = h.sessionEvents('tool.call.result').find((e) => e.type === 'tool.call.result' && e.name === 'mcp__test__echo') as Extract<
      SessionEvent,
      { type: 'tool.call.result' }
    >;
    expect(card.display).toMatchObject({ kind: 'mcp_result', server: 'test', text: 'echo: hi' });
    const started = h.sessionEvents('tool.call.started').find((e) => e.type === 'tool.call.started' && e.name === 'mcp__test__echo') as Extract<
      SessionEvent,
      { type: 'tool.call.started' }
    >;
    expect(started.display).toMatchObject({ kind: 'mcp_call', server: 'test', tool: 'echo' });
  });

  it('validates arguments against the server’s schema (of its own draft) before calling', async () => {
    h = await createHarness();
    await userServers(h, { test: server() });
    await overviewWhen(h, (o) => statusOf(o, 'test') === 'connected');
    h.server.enqueue(
      toolStep(
        callChunk('mcp__test__echo', { txt: 'hi' }),
        callChunk('mcp__test__structured', { n: 0 }),
        callChunk('mcp__test__odd_name_with_spaces', { pair: ['a', 'b'] }),
      ),
      textReply('ok'),
    );
    await h.run('go');
    const [echo, structured, odd] = toolMessages(h);
    expect(echo).toBe("ERROR: Invalid arguments for mcp__test__echo: must have required property 'text'; must NOT have additional property 'txt'.");
    expect(structured).toContain('n must be >= 1');
    // A 2020-12 schema (prefixItems) is checked by its own draft.
    expect(odd).toContain('/pair/1');
  });

  it('passes images only to a model that accepts them', async () => {
    h = await createHarness();
    await userServers(h, { test: server() });
    await overviewWhen(h, (o) => statusOf(o, 'test') === 'connected');
    h.server.enqueue(toolStep(callChunk('mcp__test__image', {})), textReply('ok'));
    await h.run('go');
    expect(toolMessages(h)[0]).toContain('An image (image/png) was omitted: the configured model does not accept images.');
  });

  it('shows a failing server with its error and stderr, and never crashes the core', async () => {
    h = await createHarness();
    await userServers(h, { broken: server({ MCP_TEST_FAIL_START: 'cannot open database /nope.db' }), missing: { command: '/no/such/program' } });
    const overview = await overviewWhen(h, (o) => statusOf(o, 'broken') === 'failed' && statusOf(o, 'missing') === 'failed');
    const broken = overview.servers.find((s) => s.name === 'broken')!;
    expect(broken.error).toContain('cannot open database /nope.db');
    expect(broken.stderr).toContain('cannot open database /nope.db');
    expect(overview.servers.find((s) => s.name === 'missing')!.error).toMatch(/ENOENT|not found|Could not connect/);
    h.server.enqueue(textReply('still here'));
    await h.run('hello');
    expect(h.sessionEvents('turn.ended').at(-1)).toMatchObject({ stopReason: 'end_turn' });
  });

  it('fails the call in flight clearly when the server dies, restarts it, and leaves no process behind on close', async () => {
    h = await createHarness({ capabilities: fastRestarts });
    const pidFile = join(h.home, 'pids');
    // A tag on its command line finds its processes in the process table (a contained server's own pids are its namespace's).
    const tag = `--tag=${randomUUID()}`;
    await userServers(h, { test: server({ MCP_TEST_PIDFILE: pidFile }, { args: [TEST_SERVER, tag] }) });
    await overviewWhen(h, (o) => statusOf(o, 'test') === 'connected');
    h.server.enqueue(toolStep(callChunk('mcp__test__crash', {})), textReply('noted'));
    await h.run('crash it');
    expect(toolMessages(h)[0]).toMatch(/^ERROR: The MCP server "test" exited while crash ran.*about to crash.*effect is unknown/s);
    await overviewWhen(h, (o) => statusOf(o, 'test') === 'connected');
    h.server.enqueue(toolStep(callChunk('mcp__test__echo', { text: 'back' })), textReply('ok'));
    await h.run('again');
    expect(toolMessages(h).at(-1)).toBe('echo: back');
    const pids = (await readFile(pidFile, 'utf8')).trim().split('\n').map(Number);
    expect(pids).toHaveLength(2);
    const tagged = () =>
      execFileSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' })
        .split('\n')
        .filter((line) => line.includes(tag) && !line.trim().startsWith('Z'));
    expect(tagged().length).toBeGreaterThan(0);
    await h.core.close();
    await waitFor(() => tagged().length === 0, 10_000);
  });

  it('refreshes tools on list_changed and shows progress of a slow call', async () => {
    h = await createHarness();
    await userServers(h, { test: server() });
    await overviewWhen(h, (o) => statusOf(o, 'test') === 'connected');
    h.server.enqueue(toolStep(callChunk('mcp__test__add_tool', {})), textReply('ok'));
    await h.run('add');
    await overviewWhen(h, (o) => o.servers[0]!.tools.some((t) => t.name === 'mcp__test__extra'));
    h.server.enqueue(toolStep(callChunk('mcp__test__extra', {}), callChunk('mcp__test__slow', { steps: 3, ms: 20 })), textReply('ok'));
    await h.run('use it');
    expect(toolMessages(h).slice(-2)).toEqual(['extra ran', 'done after 3 steps']);
    const progress = h.sessionEvents('tool.call.progress').map((e) => (e.type === 'tool.call.progress' ? e.text : ''));
    // The SDK hands notifications on a tick later than responses: those that reached Deft in the same read as
    // the result come after the call ended and are dropped. What is shown comes in order, the first at least.
    const expected = ['1 of 3 — step 1', '2 of 3 — step 2', '3 of 3 — step 3'];
    expect(progress[0]).toBe(expected[0]);
    expect(progress).toEqual(expected.slice(0, progress.length));
  });

  it('cancels a call in flight with the protocol’s cancellation when the turn is stopped', async () => {
    h = await createHarness();
    await userServers(h, { test: server() });
    await overviewWhen(h, (o) => statusOf(o, 'test') === 'connected');
    h.server.enqueue(toolStep(callChunk('mcp__test__slow', { steps: 200, ms: 50 })));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'slow' });
    await waitFor(() => h!.sessionEvents('tool.call.progress').length > 0, 10_000);
    await h.core.handlers.cancelTurn({ sessionId: h.session.id });
    expect(await h.core.turnDone(h.session.id)).toMatchObject({ stopReason: 'cancelled' });
    // The server is still there for the next call.
    h.server.enqueue(toolStep(callChunk('mcp__test__echo', { text: 'after' })), textReply('ok'));
    await h.run('again');
    expect(toolMessages(h).at(-1)).toBe('echo: after');
  });

  it('signs in to a server protected by OAuth (discovery, registration, PKCE), keeps the tokens, and refuses a callback it did not start', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [OAUTH_SERVER, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const port = await new Promise<number>((resolve) => child.stdout.on('data', (d: Buffer) => resolve(Number(/listening (\d+)/.exec(d.toString())![1]))));
      const url = `http://127.0.0.1:${port}/mcp`;
      h = await createHarness();
      await userServers(h, { remote: { type: 'http', url } });
      const waiting = await overviewWhen(h, (o) => statusOf(o, 'remote') === 'needs-auth' && Boolean(o.servers[0]!.authorizeUrl));
      const authorizeUrl = new URL(waiting.servers[0]!.authorizeUrl!);
      expect(authorizeUrl.origin).toBe(`http://127.0.0.1:${port}`);
      expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
      const redirect = authorizeUrl.searchParams.get('redirect_uri')!;
      expect(redirect).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      // Another local process guessing at the callback gets nowhere.
      const forged = await fetch(`${redirect}?code=stolen&state=guess`);
      expect(forged.status).toBe(400);
      expect(statusOf(await h.core.handlers.listMcpServers({}), 'remote')).toBe('needs-auth');
      // The user's browser: the server's page approves and sends it back to Deft's loopback callback.
      const approved = await fetch(authorizeUrl, { redirect: 'manual' });
      const back = await fetch(approved.headers.get('location')!);
      expect(back.status).toBe(200);
      expect(await back.text()).toContain('Deft is signed in to remote');
      await overviewWhen(h, (o) => statusOf(o, 'remote') === 'connected');
      h.server.enqueue(toolStep(callChunk('mcp__remote__whoami', {})), textReply('ok'));
      await h.run('who am I');
      expect(toolMessages(h)[0]).toMatch(/^signed in as client-/);
      // The state is used once: the same callback again is refused.
      expect((await fetch(approved.headers.get('location')!)).status).toBe(400);
      // The tokens are kept like API keys, and a restart of Deft connects without signing in again.
      expect(JSON.parse((await h.secrets.get('mcp.oauth.remote'))!)).toMatchObject({ url, tokens: { token_type: 'bearer' } });
      await h.core.handlers.restartMcpServer({ name: 'remote' });
      await overviewWhen(h, (o) => statusOf(o, 'remote') === 'connected');
      expect(await (await fetch(`http://127.0.0.1:${port}/stats`)).json()).toEqual({ clients: 1, issued: 1 });
    } finally {
      child.kill();
    }
  });

  it('refreshes an expired OAuth token without asking the user again', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [OAUTH_SERVER, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const port = await new Promise<number>((resolve) => child.stdout.on('data', (d: Buffer) => resolve(Number(/listening (\d+)/.exec(d.toString())![1]))));
      h = await createHarness();
      await userServers(h, { remote: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } });
      const waiting = await overviewWhen(h, (o) => Boolean(o.servers[0]!.authorizeUrl));
      const approved = await fetch(waiting.servers[0]!.authorizeUrl!, { redirect: 'manual' });
      await fetch(approved.headers.get('location')!);
      await overviewWhen(h, (o) => statusOf(o, 'remote') === 'connected');
      const stats = async () => (await (await fetch(`http://127.0.0.1:${port}/stats`)).json()) as { clients: number; issued: number };
      const before = await stats();
      await fetch(`http://127.0.0.1:${port}/expire`, { method: 'POST' });
      // The access token has expired: the call is refused once, the refresh token gets a new one, the call goes through.
      h.server.enqueue(toolStep(callChunk('mcp__remote__whoami', {})), textReply('ok'));
      await h.run('who am I now');
      expect(toolMessages(h)[0]).toMatch(/^signed in as client-/);
      const after = await stats();
      expect(after.clients).toBe(1);
      expect(after.issued).toBeGreaterThan(before.issued);
      const final = await h.core.handlers.listMcpServers({});
      expect(statusOf(final, 'remote')).toBe('connected');
      expect(final.servers[0]!.authorizeUrl).toBeUndefined();
    } finally {
      child.kill();
    }
  });

  it('speaks Streamable HTTP to a remote server on loopback', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [TEST_SERVER, '--http', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const port = await new Promise<number>((resolve) => child.stdout.on('data', (d: Buffer) => resolve(Number(/listening (\d+)/.exec(d.toString())![1]))));
      h = await createHarness();
      await userServers(h, {
        remote: { type: 'http', url: `http://127.0.0.1:${port}/mcp` },
        gone: { type: 'http', url: `http://127.0.0.1:${port}/nothing-here` },
      });
      const overview = await overviewWhen(h, (o) => statusOf(o, 'remote') === 'connected' && statusOf(o, 'gone') === 'failed');
      expect(overview.servers.find((s) => s.name === 'remote')).toMatchObject({ transport: 'http', target: `http://127.0.0.1:${port}/mcp` });
      h.server.enqueue(toolStep(callChunk('mcp__remote__echo', { text: 'over http' })), textReply('ok'));
      await h.run('go');
      expect(toolMessages(h)[0]).toBe('echo: over http');
    } finally {
      child.kill();
    }
  });
});

describe('workspace servers and trust', () => {
  it('starts nothing from an untrusted folder; once trusted each server is approved once, and a changed definition asks again', async () => {
    h = await createHarness({ host: webHost });
    const pidFile = join(h.workspace, 'pids');
    await writeFile(join(h.workspace, '.mcp.json'), JSON.stringify({ mcpServers: { repo: server({ MCP_TEST_PIDFILE: pidFile }) } }));
    await overviewWhen(h, (o) => statusOf(o, 'repo') === 'untrusted');
    // Starting turns does not start it either.
    h.server.enqueue(textReply('hi'));
    await h.run('hello');
    expect(h.server.requests[0]!.body.tools!.some((t) => t.function.name.startsWith('mcp__'))).toBe(false);
    // Approving it before trusting the folder is refused (it would start the moment the folder is trusted).
    await expect(h.core.handlers.decideMcpServer({ name: 'repo', approved: true })).rejects.toThrow('Trust this folder first');
    expect(statusOf(await h.core.handlers.listMcpServers({}), 'repo')).toBe('untrusted');
    expect(existsSync(pidFile)).toBe(false);

    await h.core.handlers.trustWorkspace({});
    const waiting = await overviewWhen(h, (o) => statusOf(o, 'repo') === 'needs-approval');
    // The approval shows the definition as written.
    expect(waiting.servers[0]!.definition).toEqual(server({ MCP_TEST_PIDFILE: pidFile }));
    expect(existsSync(pidFile)).toBe(false);
    await h.core.handlers.decideMcpServer({ name: 'repo', approved: true });
    await overviewWhen(h, (o) => statusOf(o, 'repo') === 'connected');
    expect(existsSync(pidFile)).toBe(true);

    // The repository changes the command: the old answer no longer counts.
    await writeFile(join(h.workspace, '.mcp.json'), JSON.stringify({ mcpServers: { repo: server({ MCP_TEST_PIDFILE: pidFile, OTHER: '1' }) } }));
    await overviewWhen(h, (o) => statusOf(o, 'repo') === 'needs-approval');
    await h.core.handlers.decideMcpServer({ name: 'repo', approved: false });
    await overviewWhen(h, (o) => statusOf(o, 'repo') === 'denied');
  });

  it('deft run (headless) starts a workspace server only once the folder is trusted and its definition approved, saying why not', async () => {
    const lines: string[] = [];
    h = await createHarness({ host: cliHost((l) => lines.push(l)), capabilities: withMcpOptions(defaultCapabilities, { headless: true }) });
    await writeFile(join(h.workspace, '.mcp.json'), JSON.stringify({ mcpServers: { repo: server() } }));
    const { session } = await h.core.handlers.createSession({});
    expect(lines.join('')).toContain('MCP server "repo" from');
    expect(lines.join('')).toContain('was not started: this folder is not trusted');
    expect(statusOf(await h.core.handlers.listMcpServers({}), 'repo')).toBe('untrusted');
    await h.core.handlers.trustWorkspace({});
    await h.core.handlers.deleteSession({ sessionId: session.id });
    await h.core.handlers.createSession({});
    // Trusting the folder is not approving what it runs: nobody can approve in a headless run.
    expect(statusOf(await h.core.handlers.listMcpServers({}), 'repo')).toBe('needs-approval');
    expect(lines.join('')).toContain('is not approved, or changed since it was. Approve it with: deft mcp approve repo');
    await h.core.handlers.decideMcpServer({ name: 'repo', approved: true });
    await overviewWhen(h, (o) => statusOf(o, 'repo') === 'connected');
  });

  it('a disabled server is stopped and stays off until enabled', async () => {
    h = await createHarness();
    await userServers(h, { test: server() });
    await overviewWhen(h, (o) => statusOf(o, 'test') === 'connected');
    await h.core.handlers.setMcpServerEnabled({ name: 'test', enabled: false });
    expect(statusOf(await h.core.handlers.listMcpServers({}), 'test')).toBe('disabled');
    const settings = JSON.parse(await readFile(join(h.home, 'settings.json'), 'utf8')) as { mcp: { disabled: string[] } };
    expect(settings.mcp.disabled).toEqual(['test']);
    await h.core.handlers.setMcpServerEnabled({ name: 'test', enabled: true });
    await overviewWhen(h, (o) => statusOf(o, 'test') === 'connected');
  });

  it('saves a server to the user file only when its entry is valid', async () => {
    h = await createHarness();
    await expect(h.core.handlers.saveMcpServer({ name: 'x', definition: { args: ['a'] } })).rejects.toThrow('it has neither "command" nor "url"');
    await h.core.handlers.saveMcpServer({ name: 'added', definition: server() });
    const saved = JSON.parse(await readFile(join(h.home, 'mcp.json'), 'utf8')) as { mcpServers: Record<string, unknown> };
    expect(Object.keys(saved.mcpServers)).toEqual(['added']);
    await overviewWhen(h, (o) => statusOf(o, 'added') === 'connected');
  });
});

describe('MCP tools and permissions', () => {
  type Requested = Extract<SessionEvent, { type: 'approval.requested' }>;
  it('asks in ask mode; a rule by name (mcp__test__*) allows, a deny rule wins', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask' });
    await userServers(h, { test: server() });
    await overviewWhen(h, (o) => statusOf(o, 'test') === 'connected');
    h.server.enqueue(toolStep(callChunk('mcp__test__echo', { text: 'ask me' })), textReply('ok'));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'go' });
    const request = await waitFor(() => h!.sessionEvents('approval.requested')[0] as Requested | undefined);
    expect(request).toMatchObject({ toolName: 'mcp__test__echo', approvalRule: 'mcp__test__echo', display: { kind: 'mcp_call', server: 'test' } });
    await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: request.requestId, answer: { decision: 'approve', scope: 'once' } });
    await h.core.turnDone(h.session.id);
    expect(toolMessages(h)[0]).toBe('echo: ask me');

    const settings = JSON.parse(await readFile(join(h.home, 'settings.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(
      join(h.home, 'settings.json'),
      JSON.stringify({ ...settings, permissions: { defaultMode: 'ask', allow: ['mcp__test__*'], deny: ['mcp__test__crash'] } }),
    );
    h.server.enqueue(toolStep(callChunk('mcp__test__echo', { text: 'allowed' }), callChunk('mcp__test__crash', {})), textReply('ok'));
    await h.run('again');
    expect(toolMessages(h).slice(-2)).toEqual(['echo: allowed', expect.stringContaining('is blocked by the deny rule "mcp__test__crash"')]);
    expect(h.sessionEvents('approval.requested')).toHaveLength(1);
  });
});

describe('deferred MCP tools and select_tools', () => {
  it('keeps many tools out of the request, announces them, loads what select_tools names (from the next step, across a restart), and refuses an unselected call', async () => {
    h = await createHarness();
    await userServers(h, { many: server({ MCP_TEST_TOOLS: '40' }) });
    const overview = await overviewWhen(h, (o) => statusOf(o, 'many') === 'connected');
    expect(overview.servers[0]!.tools.every((t) => t.deferred)).toBe(true);
    h.server.enqueue(
      toolStep(callChunk('mcp__many__echo', { text: 'too early' })),
      toolStep(callChunk('select_tools', { names: ['mcp__many__echo', 'mcp__many__generated_7', 'mcp__many__ecco', 'Read'] })),
      toolStep(callChunk('mcp__many__echo', { text: 'loaded' })),
      textReply('ok'),
    );
    await h.run('go');
    const [first, , third] = h.server.requests.map((r) => r.body);
    const toolNames = (body: typeof first) => body!.tools!.map((t) => t.function.name);
    expect(toolNames(first).filter((n) => n.startsWith('mcp__'))).toEqual([]);
    expect(toolNames(first)).toContain('select_tools');
    const reminder = first!.messages.find((m) => typeof m.content === 'string' && m.content.includes('Deferred tools changed'))!;
    expect(String(reminder.content)).toContain('- mcp__many__echo: Echo the text back.');
    expect(String(reminder.content)).not.toContain('Second line');
    const results = toolMessages(h);
    expect(results[0]).toContain('Tool "mcp__many__echo" is deferred');
    expect(results[1]).toBe(
      'Loaded: mcp__many__echo\nLoaded: mcp__many__generated_7\nUnknown: mcp__many__ecco (close names: mcp__many__echo, mcp__many__extra)\nAlready available: Read\nLoaded tools can be called from your next step.'.replace(
        ', mcp__many__extra',
        '',
      ),
    );
    expect(toolNames(third).filter((n) => n.startsWith('mcp__'))).toEqual(['mcp__many__echo', 'mcp__many__generated_7']);
    expect(results[2]).toBe('echo: loaded');
    // One announcement only: the set did not change.
    expect(third!.messages.filter((m) => typeof m.content === 'string' && m.content.includes('Deferred tools changed'))).toHaveLength(1);

    // A new core on the same session (a restart) derives the loaded set from the history.
    const { DeftCore } = await import('#runtime/core');
    const { FileSecretStore } = await import('#infra/settings/secrets');
    await h.core.close();
    const again = new DeftCore({
      home: h.home,
      workspace: h.workspace,
      host: cliHost(),
      secrets: FileSecretStore.inHome(h.home),
      capabilities: defaultCapabilities,
    });
    try {
      await again.handlers.openSession({ sessionId: h.session.id });
      await overviewWhen({ ...h, core: again }, (o) => statusOf(o, 'many') === 'connected');
      h.server.enqueue(textReply('resumed'));
      await again.handlers.sendPrompt({ sessionId: h.session.id, text: 'more' });
      await again.turnDone(h.session.id);
      const resumed = h.server.requests.at(-1)!.body;
      expect(toolNames(resumed).filter((n) => n.startsWith('mcp__'))).toEqual(['mcp__many__echo', 'mcp__many__generated_7']);
    } finally {
      await again.close();
    }
  });

  it('a compaction clears the loaded set and announces the deferred tools again; an undo takes a selection back', async () => {
    h = await createHarness();
    await userServers(h, { many: server({ MCP_TEST_TOOLS: '40' }) });
    await overviewWhen(h, (o) => statusOf(o, 'many') === 'connected');
    const offered = () =>
      h!.server.requests
        .at(-1)!
        .body.tools!.map((t) => t.function.name)
        .filter((n) => n.startsWith('mcp__'));
    const announcements = () =>
      h!.server.requests.at(-1)!.body.messages.filter((m) => typeof m.content === 'string' && m.content.includes('Deferred tools changed')).length;
    h.server.enqueue(toolStep(callChunk('select_tools', { names: ['mcp__many__echo'] })), textReply('loaded'));
    await h.run('load');
    h.server.enqueue(toolStep(callChunk('select_tools', { names: ['mcp__many__big'] })), textReply('loaded too'));
    await h.run('load more');
    expect(offered()).toEqual(['mcp__many__echo', 'mcp__many__big']);
    await h.core.handlers.undoTurns({ sessionId: h.session.id, count: 1 });
    h.server.enqueue(textReply('after undo'));
    await h.run('next');
    expect(offered()).toEqual(['mcp__many__echo']);

    h.server.enqueue(textReply('Handoff note: echo was loaded.'));
    await h.core.handlers.compactSession({ sessionId: h.session.id });
    await h.core.turnDone(h.session.id);
    h.server.enqueue(textReply('fresh'));
    await h.run('after compaction');
    expect(offered()).toEqual([]);
    expect(announcements()).toBe(1);
  });

  it('select_tools is an error only when every name fails', async () => {
    h = await createHarness();
    await userServers(h, { many: server({ MCP_TEST_TOOLS: '40' }) });
    await overviewWhen(h, (o) => statusOf(o, 'many') === 'connected');
    h.server.enqueue(toolStep(callChunk('select_tools', { names: ['nope', 'also_nope'] })), textReply('ok'));
    await h.run('go');
    expect(toolMessages(h)[0]).toMatch(/^ERROR: Unknown: nope\nUnknown: also_nope/);
  });

  it('defers a server marked "defer": true even with few tools', async () => {
    h = await createHarness();
    await userServers(h, { lazy: server({}, { defer: true }) });
    const overview = await overviewWhen(h, (o) => statusOf(o, 'lazy') === 'connected');
    expect(overview.servers[0]!.tools.every((t) => t.deferred)).toBe(true);
  });
});

void mcpCapability;
