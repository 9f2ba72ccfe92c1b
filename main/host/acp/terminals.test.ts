import { existsSync } from 'node:fs';
import { mkdir, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { type AcpProcess, startAcp } from '#test-support/acp-process';
import { TestTerminals } from '#test-support/acp-terminals';
import { tempDir } from '#test-support/harness';
import { MockModelServer } from '#test-support/mock-model-server';
import { describeSandboxed } from '#test-support/sandbox';
import { waitFor } from '#test-support/wait';

// `deft acp` with an editor that offers terminals (`clientCapabilities.terminal`): Bash runs in the editor's terminal,
// shown on its tool call, while Deft's environment, sandbox and stop still hold.

let server: MockModelServer;
let workspace: string;
let home: string;
let terminals: TestTerminals;
const running: AcpProcess[] = [];

beforeEach(async () => {
  server = new MockModelServer();
  await server.start();
  workspace = await realpath(join(await tempDir('deft-acp-term-'), '.'));
  await mkdir(join(workspace, 'project'));
  workspace = join(workspace, 'project');
  home = await tempDir('deft-acp-term-home-');
  // The editor's own environment holds a token: a command must never see it.
  terminals = new TestTerminals({ EDITOR_TOKEN: 'editor-secret-123' });
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.stop()));
  terminals.close();
  await server.close();
});

async function open(sandbox: 'on' | 'off') {
  const acp = startAcp({
    cwd: workspace,
    env: { DEFT_HOME: home },
    args: ['--base-url', server.baseUrl, '--model', 'mock-model', '--sandbox', sandbox],
    handlers: { terminals },
  });
  running.push(acp);
  await acp.connection.agent.request('initialize', {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: true },
    clientInfo: { name: 'test-editor', version: '1.0.0' },
  });
  const { sessionId } = await acp.connection.agent.request('session/new', { cwd: workspace, mcpServers: [] });
  await acp.connection.agent.request('session/set_mode', { sessionId, modeId: 'yolo' });
  return { acp, sessionId };
}

const toolCall = (name: string, args: unknown) => ({ toolCall: { name, args: JSON.stringify(args), pieces: 1 } });
const updates = (acp: AcpProcess, sessionId: string) =>
  acp.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'tool_call_update').map((n) => n.update) as Array<
    Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }>
  >;
/** What the model was given back for its tool calls in request `i`. */
const toolResults = (i: number) => JSON.stringify(server.requests[i]!.body.messages.filter((m) => m.role === 'tool'));

describe('deft acp with the editor’s terminals', () => {
  it('runs Bash in the editor’s terminal: shown on the call, its output and exit code reach the model, the editor’s environment does not', {
    timeout: 90_000,
  }, async () => {
    const { acp, sessionId } = await open('off');
    server.enqueue(
      {
        chunks: [
          toolCall('Bash', { command: 'echo from-terminal; echo "token=[$EDITOR_TOKEN]"; echo to-stderr >&2; exit 3' }),
          toolCall('Glob', { pattern: '*' }),
          { finish: 'tool_calls' },
        ],
      },
      { chunks: [{ text: 'done' }, { finish: 'stop' }] },
    );
    const response = await acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run it' }] });
    expect(response.stopReason).toBe('end_turn');
    // One terminal: the command's. Glob's ripgrep and Deft's own git stayed Deft's.
    expect(terminals.created).toHaveLength(1);
    const created = terminals.created[0]!;
    expect(created).toMatchObject({ sessionId, command: '/usr/bin/env', cwd: workspace });
    expect(created.args?.[0]).toBe('-i');
    expect(created.args).toContain('echo from-terminal; echo "token=[$EDITOR_TOKEN]"; echo to-stderr >&2; exit 3');
    expect(terminals.released).toEqual(['term-1']);

    const results = toolResults(1);
    expect(results).toContain('from-terminal');
    expect(results).toContain('to-stderr');
    expect(results).toContain('token=[]');
    expect(results).not.toContain('editor-secret-123');
    expect(results).toContain('exit code: 3');

    // The call shows the terminal, live and after it ended, instead of streamed text.
    const shown = updates(acp, sessionId).filter((u) => u.content?.some((c) => c.type === 'terminal'));
    expect(shown.length).toBeGreaterThanOrEqual(2);
    expect(shown.every((u) => u.content?.length === 1 && u.content[0]!.type === 'terminal' && u.content[0]!.terminalId === 'term-1')).toBe(true);
    expect(shown.at(-1)!.status).toBe('failed');
  });

  it('stops a command in the editor’s terminal when the turn is cancelled: the terminal is killed and released, nothing is left', {
    timeout: 90_000,
  }, async () => {
    const { acp, sessionId } = await open('off');
    server.enqueue({ chunks: [toolCall('Bash', { command: 'sleep 30; touch late' }), { finish: 'tool_calls' }] });
    const prompt = acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'wait' }] });
    await waitFor(() => terminals.created.length === 1, 30_000);
    await new Promise((r) => setTimeout(r, 500));
    await acp.connection.agent.notify('session/cancel', { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    await waitFor(() => terminals.released.includes('term-1'), 15_000);
    expect(existsSync(join(workspace, 'late'))).toBe(false);
  });
});

describeSandboxed('deft acp with the editor’s terminals, sandboxed', () => {
  it('runs the sandbox’s plan in the terminal: a write outside the workspace is refused there', { timeout: 90_000 }, async () => {
    const { acp, sessionId } = await open('on');
    const outside = join(await tempDir('deft-acp-term-outside-'), 'outside.txt');
    server.enqueue(
      { chunks: [toolCall('Bash', { command: `echo inside > in.txt; echo escaped > ${outside}` }), { finish: 'tool_calls' }] },
      { chunks: [{ text: 'done' }, { finish: 'stop' }] },
    );
    const response = await acp.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(terminals.created).toHaveLength(1);
    expect(terminals.created[0]!.args?.some((a) => a.endsWith('bwrap'))).toBe(true);
    expect(existsSync(join(workspace, 'in.txt'))).toBe(true);
    expect(existsSync(outside)).toBe(false);
    expect(toolResults(1)).toMatch(/Read-only file system|Permission denied|No such file or directory/);
  });
});
