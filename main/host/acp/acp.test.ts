import { existsSync } from 'node:fs';
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ContentBlock, SessionNotification, SessionUpdate } from '@agentclientprotocol/sdk';
import { type AcpProcess, type EditorHandlers, startAcp } from '#test-support/acp-process';
import { tempDir } from '#test-support/harness';
import { MockModelServer, lastUserText } from '#test-support/mock-model-server';
import { waitFor } from '#test-support/wait';
import { textReply } from '#test-support/mock-steps';

// `deft acp` as an editor runs it: a process of its own, driven over stdio by the ACP SDK's client, against the mock model.

let server: MockModelServer;
let workspace: string;
let home: string;
const running: AcpProcess[] = [];

beforeEach(async () => {
  server = new MockModelServer();
  await server.start();
  workspace = join(await tempDir('deft-acp-'), 'project');
  await mkdir(workspace);
  home = await tempDir('deft-acp-home-');
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop()));
  await server.close();
});

function start(options: { handlers?: EditorHandlers; fs?: boolean } = {}): AcpProcess {
  const acp = startAcp({
    cwd: workspace,
    env: { DEFT_HOME: home },
    args: ['--base-url', server.baseUrl, '--model', 'mock-model', '--sandbox', 'off'],
    ...(options.handlers ? { handlers: options.handlers } : {}),
  });
  running.push(acp);
  return acp;
}

async function initialize(acp: AcpProcess, fs = false) {
  return acp.connection.agent.request('initialize', {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: fs, writeTextFile: fs }, terminal: false },
    clientInfo: { name: 'test-editor', version: '1.0.0' },
  });
}

async function newSession(acp: AcpProcess, cwd = workspace) {
  return acp.connection.agent.request('session/new', { cwd, mcpServers: [] });
}

const updatesOf = (acp: AcpProcess, sessionId: string, kind?: SessionUpdate['sessionUpdate']): SessionUpdate[] =>
  acp.updates.filter((n: SessionNotification) => n.sessionId === sessionId && (!kind || n.update.sessionUpdate === kind)).map((n) => n.update);

const toolCall = (name: string, args: unknown) => ({ toolCall: { name, args: JSON.stringify(args), pieces: 2 } });

describe('deft acp', () => {
  it('initializes, streams answer and thought chunks, a Write as a diff, a command’s output and the todo list as a plan', { timeout: 90_000 }, async () => {
    const acp = start();
    const init = await initialize(acp);
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities).toMatchObject({ loadSession: true, promptCapabilities: { image: true, embeddedContext: true } });
    const { sessionId, modes } = await newSession(acp);
    expect(modes?.currentModeId).toBe('ask');
    expect(modes?.availableModes.map((m) => m.id)).toEqual(['ask', 'accept-edits', 'yolo', 'plan']);
    await acp.connection.agent.request('session/set_mode', { sessionId, modeId: 'yolo' });
    // The model and effort selectors, set as the window's model menu and effort chip set them.
    const created = await acp.connection.agent.request('session/new', { cwd: workspace, mcpServers: [] });
    expect(created.configOptions?.find((o) => o.id === 'model')).toMatchObject({ currentValue: 'mock-model', category: 'model' });
    expect(JSON.stringify(created.configOptions)).toContain('mock-model-large');
    const set = await acp.connection.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'mock-model-large' });
    expect(set.configOptions.find((o) => o.id === 'model')?.currentValue).toBe('mock-model-large');
    await acp.connection.agent.request('session/set_config_option', { sessionId, configId: 'effort', value: 'high' });
    await expect(acp.connection.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'not-offered' })).rejects.toMatchObject({
      code: -32602,
    });

    server.enqueue(
      {
        chunks: [
          { thinking: 'Let me plan. ' },
          { text: 'Writing ' },
          { text: 'the file.' },
          toolCall('TodoList', {
            todos: [
              { title: 'Write notes', status: 'in_progress' },
              { title: 'Check it', status: 'pending' },
            ],
          }),
          toolCall('Write', { path: 'notes.txt', content: 'one\ntwo\n' }),
          toolCall('Bash', { command: 'echo from-bash' }),
          { finish: 'tool_calls' },
        ],
      },
      { chunks: [{ text: 'Done.' }, { finish: 'stop' }] },
    );
    const context: ContentBlock = {
      type: 'resource',
      resource: { uri: `file://${workspace}/spec.md`, text: 'The spec says: be brief.', mimeType: 'text/markdown' },
    };
    const response = await acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Write notes' }, context] });
    expect(response.stopReason).toBe('end_turn');
    expect(await readFile(join(workspace, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
    expect(server.requests[0]!.body).toMatchObject({ model: 'mock-model-large', reasoning_effort: 'high' });
    // The resource reached the model as context after the prompt.
    expect(lastUserText(server.requests[0]!)).toContain('The spec says: be brief.');

    const text = updatesOf(acp, sessionId, 'agent_message_chunk').map((u) => (u as { content: { text: string } }).content.text);
    expect(text.join('')).toBe('Writing the file.Done.');
    const thoughts = updatesOf(acp, sessionId, 'agent_thought_chunk').map((u) => (u as { content: { text: string } }).content.text);
    expect(thoughts.join('')).toBe('Let me plan. ');
    expect(updatesOf(acp, sessionId, 'current_mode_update')).toContainEqual(expect.objectContaining({ currentModeId: 'yolo' }));

    const calls = updatesOf(acp, sessionId, 'tool_call') as Array<Extract<SessionUpdate, { sessionUpdate: 'tool_call' }>>;
    const write = calls.find((c) => c.name === 'Write')!;
    expect(write).toMatchObject({ kind: 'edit', status: 'in_progress', locations: [{ path: join(workspace, 'notes.txt') }] });
    const results = updatesOf(acp, sessionId, 'tool_call_update') as Array<Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }>>;
    const written = results.find((u) => u.toolCallId === write.toolCallId && u.status === 'completed')!;
    expect(written.content).toEqual([{ type: 'diff', path: join(workspace, 'notes.txt'), oldText: null, newText: 'one\ntwo' }]);
    // Then the whole file, read back through the core.
    const whole = () =>
      (updatesOf(acp, sessionId, 'tool_call_update') as typeof results).find(
        (u) => u.toolCallId === write.toolCallId && u !== written && u.content?.[0]?.type === 'diff',
      );
    await waitFor(() => whole() !== undefined, 10_000);
    expect(whole()!.content).toEqual([{ type: 'diff', path: join(workspace, 'notes.txt'), oldText: null, newText: 'one\ntwo\n' }]);

    const bash = calls.find((c) => c.name === 'Bash')!;
    expect(bash.kind).toBe('execute');
    const ran = results.find((u) => u.toolCallId === bash.toolCallId && u.status === 'completed')!;
    expect(JSON.stringify(ran.content)).toContain('from-bash');

    const plans = updatesOf(acp, sessionId, 'plan') as Array<Extract<SessionUpdate, { sessionUpdate: 'plan' }>>;
    expect(plans.at(-1)?.entries).toEqual([
      { content: 'Write notes', priority: 'medium', status: 'in_progress' },
      { content: 'Check it', priority: 'medium', status: 'pending' },
    ]);
    const commands = await waitFor(() => updatesOf(acp, sessionId, 'available_commands_update')[0]);
    expect(JSON.stringify(commands)).toContain('"compact"');
  });

  it('asks with Deft’s choices; a rejection writes nothing, an approval once writes', { timeout: 90_000 }, async () => {
    const answers = ['reject', 'once'];
    const acp = start({
      handlers: { permission: async () => ({ outcome: { outcome: 'selected', optionId: answers.shift()! } }) },
    });
    await initialize(acp);
    const { sessionId } = await newSession(acp);
    server.enqueue(
      { chunks: [toolCall('Write', { path: 'a.txt', content: 'A\n' }), { finish: 'tool_calls' }] },
      { chunks: [toolCall('Write', { path: 'b.txt', content: 'B\n' }), { finish: 'tool_calls' }] },
      { chunks: [{ text: 'ok' }, { finish: 'stop' }] },
    );
    const response = await acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write two files' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(acp.permissions).toHaveLength(2);
    expect(acp.permissions[0]!.options.map((o) => [o.optionId, o.kind])).toEqual([
      ['once', 'allow_once'],
      ['session', 'allow_always'],
      ['always', 'allow_always'],
      ['reject', 'reject_once'],
    ]);
    expect(acp.permissions[0]!.toolCall).toMatchObject({ kind: 'edit', content: [{ type: 'diff', path: join(workspace, 'a.txt'), newText: 'A' }] });
    expect(existsSync(join(workspace, 'a.txt'))).toBe(false);
    expect(await readFile(join(workspace, 'b.txt'), 'utf8')).toBe('B\n');
  });

  it('asks AskUserQuestion as a permission request, refuses what an erring editor was asked, and adds the editor’s MCP servers', {
    timeout: 90_000,
  }, async () => {
    const acp = start({
      handlers: {
        permission: async (request) => {
          if (request.toolCall.kind === 'edit') throw new Error('the editor broke');
          const choice = request.options.find((o) => o.name === 'Postgres') ?? request.options.find((o) => o.optionId === 'once')!;
          return { outcome: { outcome: 'selected', optionId: choice.optionId } };
        },
      },
    });
    await initialize(acp);
    const mcpServer = join(import.meta.dirname, '../../../test-support/mcp-test-server.mjs');
    const { sessionId } = await acp.connection.agent.request('session/new', {
      cwd: workspace,
      mcpServers: [{ name: 'editor tools', command: process.execPath, args: [mcpServer], env: [] }],
    });
    const question = { question: 'Which database?', header: 'Database', options: [{ label: 'SQLite' }, { label: 'Postgres' }] };
    server.enqueue(
      { chunks: [toolCall('AskUserQuestion', { questions: [question] }), { finish: 'tool_calls' }] },
      { chunks: [toolCall('Write', { path: 'db.txt', content: 'postgres\n' }), { finish: 'tool_calls' }] },
      { chunks: [toolCall('mcp__editor-tools__echo', { text: 'from the editor' }), { finish: 'tool_calls' }] },
      { chunks: [{ text: 'ok' }, { finish: 'stop' }] },
    );
    const response = await acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'set up the db' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(acp.permissions[0]!.toolCall.title).toBe('Database: Which database?');
    expect(acp.permissions[0]!.options.map((o) => o.name)).toEqual(['SQLite', 'Postgres', 'Dismiss']);
    expect(JSON.stringify(server.requests[1]!.body.messages.at(-1))).toContain('Postgres');
    // The editor failed to answer the Write's request: it did not run.
    expect(existsSync(join(workspace, 'db.txt'))).toBe(false);
    expect(server.requests[2]!.body.messages.at(-1)).toMatchObject({ role: 'tool' });
    expect(server.requests[2]!.body.tools!.some((t) => t.function.name === 'mcp__editor-tools__echo')).toBe(true);
    expect(server.requests[3]!.body.messages.at(-1)).toMatchObject({ role: 'tool', content: 'echo: from the editor' });
  });

  it('asks AskUserQuestion as one form where the editor offers elicitation: several choices for a multi-select question', {
    timeout: 90_000,
  }, async () => {
    const forms: unknown[] = [];
    const acp = start({
      handlers: {
        elicitation: async (request) => {
          forms.push(request);
          // The first form is answered as offered; the second with an answer not offered ("Nope"), which dismisses it.
          return forms.length === 1
            ? { action: 'accept', content: { q0: ['Lint', 'Tests'], q0_other: 'and docs', q1: 'No' } }
            : { action: 'accept', content: { q0: ['Lint'], q1: 'Nope' } };
        },
      },
    });
    await acp.connection.agent.request('initialize', { protocolVersion: 1, clientCapabilities: { elicitation: { form: {} } } });
    const { sessionId } = await newSession(acp);
    const checks = { question: 'Which checks?', header: 'Checks', multi_select: true, options: [{ label: 'Lint' }, { label: 'Types' }, { label: 'Tests' }] };
    const ship = { question: 'Ship it?', header: '', options: [{ label: 'Yes' }, { label: 'No' }] };
    server.enqueue(
      { chunks: [toolCall('AskUserQuestion', { questions: [checks, ship] }), { finish: 'tool_calls' }] },
      { chunks: [toolCall('AskUserQuestion', { questions: [checks, ship] }), { finish: 'tool_calls' }] },
      { chunks: [{ text: 'ok' }, { finish: 'stop' }] },
    );
    const response = await acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'check' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(acp.permissions).toHaveLength(0);
    expect(forms[0]).toMatchObject({ mode: 'form', sessionId, requestedSchema: { properties: { q0: { type: 'array' }, q1: { type: 'string' } } } });
    const answered = JSON.stringify(server.requests[1]!.body.messages.at(-1));
    expect(answered).toContain('Lint, Tests, and docs');
    expect(answered).toContain('No');
    expect(JSON.stringify(server.requests[2]!.body.messages.at(-1))).toMatch(/dismiss/i);
  });

  it('takes an image in a prompt to a model that reads images', { timeout: 90_000 }, async () => {
    server.modelInfo['mock-model'] = { architecture: { input_modalities: ['text', 'image'] } };
    const acp = start();
    await initialize(acp);
    const { sessionId } = await newSession(acp);
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    const prompt: ContentBlock[] = [
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image', data: png, mimeType: 'image/png' },
    ];
    const response = await acp.connection.agent.request('session/prompt', { sessionId, prompt });
    expect(response.stopReason).toBe('end_turn');
    // As the window's attachments: saved with the session, named in the prompt for ReadMediaFile to open.
    const said = lastUserText(server.requests[0]!);
    expect(said).toContain('open images with ReadMediaFile');
    const saved = /image-1\.png: (\S+)/.exec(said)?.[1];
    expect(saved).toBeDefined();
    expect((await readFile(saved!)).equals(Buffer.from(png, 'base64'))).toBe(true);
  });

  it('approves nothing for an editor that never answers: the turn waits, and cancel ends it with cancelled', { timeout: 90_000 }, async () => {
    const acp = start();
    await initialize(acp);
    const { sessionId } = await newSession(acp);
    server.enqueue({ chunks: [toolCall('Bash', { command: 'touch pwned' }), { finish: 'tool_calls' }] });
    let settled = false;
    const prompt = acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run it' }] });
    void prompt.finally(() => (settled = true));
    await waitFor(() => acp.permissions.length === 1, 30_000);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(settled).toBe(false);
    expect(existsSync(join(workspace, 'pwned'))).toBe(false);
    await acp.connection.agent.notify('session/cancel', { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    expect(existsSync(join(workspace, 'pwned'))).toBe(false);
  });

  it('asks again what a turn waits on when its session is loaded again; session/close lets it go, session/resume takes it back without a replay', {
    timeout: 120_000,
  }, async () => {
    let asked = 0;
    const acp = start({
      handlers: {
        // The first request is never answered (the editor lost it); the one asked again is approved.
        permission: (request) =>
          ++asked === 1 ? new Promise(() => {}) : Promise.resolve({ outcome: { outcome: 'selected', optionId: request.options[0]!.optionId } }),
      },
    });
    const init = await initialize(acp);
    expect(init.agentCapabilities?.sessionCapabilities).toMatchObject({ list: {}, resume: {}, close: {} });
    const { sessionId } = await newSession(acp);
    server.enqueue(
      { chunks: [toolCall('Write', { path: 'again.txt', content: 'again\n' }), { finish: 'tool_calls' }] },
      { chunks: [{ text: 'Written.' }, { finish: 'stop' }] },
    );
    const prompt = acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write again' }] });
    await waitFor(() => acp.permissions.length === 1, 30_000);
    await acp.connection.agent.request('session/load', { sessionId, cwd: workspace, mcpServers: [] });
    expect((await prompt).stopReason).toBe('end_turn');
    expect(acp.permissions).toHaveLength(2);
    expect(acp.permissions[1]!.toolCall.toolCallId).toBe(acp.permissions[0]!.toolCall.toolCallId);
    expect(await readFile(join(workspace, 'again.txt'), 'utf8')).toBe('again\n');

    await acp.connection.agent.request('session/close', { sessionId });
    await expect(acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'still there?' }] })).rejects.toMatchObject({
      code: -32002,
    });
    // Closing again: a -32002 on the wire, which the SDK's client takes as done (closing is idempotent).
    await expect(acp.connection.agent.request('session/close', { sessionId })).resolves.toEqual({});
    expect(acp.stdoutLines().filter((l) => l.includes('"code":-32002')).length).toBeGreaterThanOrEqual(2);
    const before = updatesOf(acp, sessionId).length;
    const resumed = await acp.connection.agent.request('session/resume', { sessionId, cwd: workspace, mcpServers: [] });
    expect(resumed.modes?.currentModeId).toBe('ask');
    // Nothing replayed (the commands come, as for a new session).
    await new Promise((r) => setTimeout(r, 300));
    expect(
      updatesOf(acp, sessionId)
        .slice(before)
        .map((u) => u.sessionUpdate),
    ).toEqual(['available_commands_update']);
    server.enqueue({ chunks: [{ text: 'Back.' }, { finish: 'stop' }] });
    expect((await acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] })).stopReason).toBe('end_turn');
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).toContain('write again');
    await expect(acp.connection.agent.request('session/resume', { sessionId: 'nope', cwd: workspace, mcpServers: [] })).rejects.toMatchObject({ code: -32002 });
  });

  it('session/close mid-turn stops the turn waiting on the editor: the prompt ends with cancelled and nothing runs', { timeout: 90_000 }, async () => {
    const acp = start();
    await initialize(acp);
    const { sessionId } = await newSession(acp);
    server.enqueue({ chunks: [toolCall('Bash', { command: 'touch closed' }), { finish: 'tool_calls' }] });
    const prompt = acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run it' }] });
    await waitFor(() => acp.permissions.length === 1, 30_000);
    await acp.connection.agent.request('session/close', { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    expect(existsSync(join(workspace, 'closed'))).toBe(false);
  });

  it('cancels a turn mid-stream: the prompt ends with cancelled', { timeout: 90_000 }, async () => {
    const acp = start();
    await initialize(acp);
    const { sessionId } = await newSession(acp);
    server.enqueue({ chunks: [{ text: 'first ' }, ...Array.from({ length: 50 }, () => ({ text: 'more ' })), { finish: 'stop' }], delayMs: 200 });
    const prompt = acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'talk' }] });
    await waitFor(() => updatesOf(acp, sessionId, 'agent_message_chunk').length > 0, 30_000);
    await acp.connection.agent.notify('session/cancel', { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    expect(updatesOf(acp, sessionId, 'agent_message_chunk').length).toBeLessThan(50);
  });

  it('session/load replays the transcript in another process', { timeout: 120_000 }, async () => {
    const first = start();
    await initialize(first);
    const { sessionId } = await newSession(first);
    await first.connection.agent.request('session/set_mode', { sessionId, modeId: 'accept-edits' });
    server.enqueue(
      { chunks: [{ text: 'Creating it.' }, toolCall('Write', { path: 'x.txt', content: 'x\n' }), { finish: 'tool_calls' }] },
      { chunks: [{ text: 'Created.' }, { finish: 'stop' }] },
    );
    await first.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'make x' }] });
    expect(await first.stop()).toBe(0);

    const second = start();
    await initialize(second);
    const listed = await second.connection.agent.request('session/list', { cwd: workspace });
    expect(listed.sessions.map((s) => [s.sessionId, s.cwd])).toEqual([[sessionId, await realpath(workspace)]]);
    const loaded = await second.connection.agent.request('session/load', { sessionId, cwd: workspace, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe('accept-edits');
    const replay = updatesOf(second, sessionId);
    const kinds = replay.map((u) => u.sessionUpdate);
    expect(kinds.indexOf('user_message_chunk')).toBeLessThan(kinds.indexOf('agent_message_chunk'));
    expect(replay).toContainEqual(expect.objectContaining({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'make x' } }));
    expect(replay).toContainEqual(expect.objectContaining({ sessionUpdate: 'tool_call', name: 'Write' }));
    const said = replay.filter((u) => u.sessionUpdate === 'agent_message_chunk').map((u) => (u as { content: { text: string } }).content.text);
    expect(said.join('')).toBe('Creating it.Created.');
    // The Write replayed with its whole file, as it was shown live.
    expect(replay).toContainEqual(
      expect.objectContaining({
        sessionUpdate: 'tool_call_update',
        content: [{ type: 'diff', path: join(await realpath(workspace), 'x.txt'), oldText: null, newText: 'x\n' }],
      }),
    );
    // And the loaded session goes on.
    const next = await second.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] });
    expect(next.stopReason).toBe('end_turn');
  });

  it('reads and writes through the editor when it offers its file system, and only for files inside the workspace', { timeout: 90_000 }, async () => {
    await writeFile(join(workspace, 'buffer.txt'), 'saved on disk\n');
    const outside = join(dirname(workspace), 'outside.txt');
    await writeFile(outside, 'outside the workspace\n');
    const asked: string[] = [];
    const written: Array<{ path: string; content: string }> = [];
    const acp = start({
      handlers: {
        readTextFile: async ({ path }) => {
          asked.push(path);
          return { content: path.endsWith('buffer.txt') ? 'unsaved buffer text\n' : 'editor copy\n' };
        },
        writeTextFile: async ({ path, content }) => {
          written.push({ path, content });
        },
      },
    });
    await initialize(acp, true);
    const { sessionId } = await newSession(acp);
    await acp.connection.agent.request('session/set_mode', { sessionId, modeId: 'yolo' });
    server.enqueue(
      { chunks: [toolCall('Read', { path: 'buffer.txt' }), toolCall('Read', { path: outside }), { finish: 'tool_calls' }] },
      { chunks: [toolCall('Edit', { path: 'buffer.txt', old_string: 'unsaved', new_string: 'edited' }), { finish: 'tool_calls' }] },
      { chunks: [{ text: 'ok' }, { finish: 'stop' }] },
    );
    const response = await acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read and edit' }] });
    expect(response.stopReason).toBe('end_turn');
    const toolResults = JSON.stringify(server.requests[1]!.body.messages.filter((m) => m.role === 'tool'));
    expect(toolResults).toContain('unsaved buffer text');
    expect(toolResults).not.toContain('saved on disk');
    expect(asked.every((p) => p.startsWith(workspace + '/'))).toBe(true);
    expect(asked).toContain(join(workspace, 'buffer.txt'));
    expect(written).toEqual([{ path: join(workspace, 'buffer.txt'), content: 'edited buffer text\n' }]);
    // The editor saves its buffers; Deft did not write the file behind its back.
    expect(await readFile(join(workspace, 'buffer.txt'), 'utf8')).toBe('saved on disk\n');
  });

  it('answers bad input with JSON-RPC errors and lives on: a malformed line, a relative or missing cwd, a hostile session id', {
    timeout: 90_000,
  }, async () => {
    const acp = start();
    await initialize(acp);
    acp.child.stdin.write('{"jsonrpc":"2.0","id":7,"method":\n');
    await waitFor(() => acp.stdoutLines().some((line) => line.includes('-32700')), 20_000);
    const relative = await newSession(acp, 'relative/project').catch((error: { code: number; message: string }) => error);
    expect(relative).toMatchObject({ code: -32602 });
    expect(String((relative as { message: string }).message) + JSON.stringify(relative)).toContain('absolute');
    await expect(newSession(acp, join(workspace, 'missing'))).rejects.toMatchObject({ code: -32602 });
    await expect(acp.connection.agent.request('session/load', { sessionId: '../../etc', cwd: workspace, mcpServers: [] })).rejects.toMatchObject({
      code: -32602,
    });
    await expect(acp.connection.agent.request('session/prompt', { sessionId: 'nope', prompt: [{ type: 'text', text: 'hi' }] })).rejects.toMatchObject({
      code: -32002,
    });
    // Still serving.
    const { sessionId } = await newSession(acp);
    const response = await acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'still there?' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(
      updatesOf(acp, sessionId, 'agent_message_chunk')
        .map((u) => (u as { content: { text: string } }).content.text)
        .join(''),
    ).toBe('Echo: still there?');
  });
  it('with no model provider, asks the editor to authenticate, and works once one is set up', { timeout: 60_000 }, async () => {
    const acp = startAcp({ cwd: workspace, env: { DEFT_HOME: home }, args: ['--sandbox', 'off'] });
    running.push(acp);
    const init = await acp.connection.agent.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: { auth: { terminal: true } },
      clientInfo: { name: 'test-editor', version: '1.0.0' },
    });
    expect(init.authMethods?.map((m) => [m.id, 'type' in m ? m.type : 'agent'])).toEqual([
      ['deft-settings', 'agent'],
      ['deft-setup', 'terminal'],
    ]);
    expect(init.authMethods?.[1]).toMatchObject({ args: ['--setup'] });
    // Nothing is set up: a session cannot be made, and authenticating says what to do.
    await expect(newSession(acp)).rejects.toMatchObject({ code: -32000 });
    await expect(acp.connection.agent.request('authenticate', { methodId: 'deft-settings' })).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining('Authentication required'),
    });
    await expect(acp.connection.agent.request('authenticate', { methodId: 'deft-setup' })).rejects.toMatchObject({ code: -32602 });
    await expect(acp.connection.agent.request('authenticate', { methodId: 'other' })).rejects.toMatchObject({ code: -32602 });
    // The user sets it up (as --setup or the window saves it); authenticating again succeeds, and a turn runs.
    await writeFile(join(home, 'settings.json'), JSON.stringify({ provider: { kind: 'openai', baseUrl: server.baseUrl, model: 'mock-model' } }));
    await expect(acp.connection.agent.request('authenticate', { methodId: 'deft-settings' })).resolves.toEqual({});
    const { sessionId } = await newSession(acp);
    server.enqueue(textReply('Hello from the model.'));
    const response = await acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hi' }] });
    expect(response.stopReason).toBe('end_turn');
    // An editor without terminal sign-in is offered only the settings method.
    const plain = start();
    expect((await initialize(plain)).authMethods?.map((m) => m.id)).toEqual(['deft-settings']);
  });
});
