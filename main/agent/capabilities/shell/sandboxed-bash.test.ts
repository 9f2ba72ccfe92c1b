import { readFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { createHarness } from '#test-support/harness';
import { eventually } from '#test-support/processes';
import { describeSandboxed } from '#test-support/sandbox';
import { type Harness, callTool } from '#test-support/shell-harness';
import { webHost } from '../../../host/hosts';

let h: Harness | undefined;
let server: Server | undefined;
afterEach(async () => {
  server?.close();
  await h?.dispose();
  h = server = undefined;
});

type Started = Extract<SessionEvent, { type: 'tool.call.started' }>;
type Requested = Extract<SessionEvent, { type: 'approval.requested' }>;

async function loopbackServer(): Promise<number> {
  server = createServer((_req, res) => res.end('hello from the host\n'));
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

describeSandboxed('Bash in the OS sandbox, through the model', () => {
  it('marks the command card sandboxed, scrubs the environment, and reports a blocked write with how to allow it', async () => {
    const previous = process.env.DEFT_API_KEY;
    process.env.DEFT_API_KEY = 'sk-from-the-environment-1234';
    try {
      h = await createHarness();
      const { result, content, callId } = await callTool(h, 'Bash', { command: 'echo "key=[$DEFT_API_KEY]"' });
      const started = h.sessionEvents('tool.call.started').find((e) => (e as Started).callId === callId) as Started;
      expect(started.display).toMatchObject({ kind: 'command', sandboxed: true });
      expect(content).toContain('key=[]');
      expect(result.isError).toBeFalsy();
    } finally {
      if (previous === undefined) delete process.env.DEFT_API_KEY;
      else process.env.DEFT_API_KEY = previous;
    }
    // A write the string-level checks cannot see (the path is decoded at run time) meets the OS.
    const target = join(h.home, 'trust.json');
    const encoded = Buffer.from(target).toString('base64');
    const { result, content } = await callTool(h, 'Bash', {
      command: `node -e "require('fs').writeFileSync(Buffer.from('${encoded}','base64').toString(), '{}')"`,
    });
    expect(result.isError).toBe(true);
    expect(content).toContain("Deft's OS sandbox refused");
    expect(content).toContain(target);
    expect(result.display).toMatchObject({ kind: 'command_output', blocked: [expect.objectContaining({ kind: 'write', target })] });
  });

  it('deft run refuses a host that is not allowed, naming the setting; an allowed one goes through', async () => {
    h = await createHarness();
    const port = await loopbackServer();
    const fetch = `curl -sS --max-time 5 --noproxy '' -x "$HTTP_PROXY" http://127.0.0.1:${port}/`;
    const refused = await callTool(h, 'Bash', { command: fetch });
    expect(refused.content).not.toContain('hello from the host');
    expect(refused.content).toContain(`connection to 127.0.0.1:${port}`);
    expect(refused.content).toMatch(/sandbox\.network\.allowedDomains/);
    const settings = JSON.parse(await readFile(join(h.home, 'settings.json'), 'utf8')) as Record<string, unknown>;
    await (await import('node:fs/promises')).writeFile(
      join(h.home, 'settings.json'),
      JSON.stringify({ ...settings, sandbox: { network: { allowedDomains: [`127.0.0.1:${port}`] } } }),
    );
    const allowed = await callTool(h, 'Bash', { command: fetch });
    expect(allowed.content).toContain('hello from the host');
  });

  it('in the window, a new host is asked about: allowed for the session it is not asked again; "always" saves it', async () => {
    h = await createHarness({ host: webHost });
    const port = await loopbackServer();
    const fetch = `curl -sS --max-time 20 --noproxy '' -x "$HTTP_PROXY" http://127.0.0.1:${port}/`;
    h.server.enqueue(
      { chunks: [{ toolCall: { id: 'net1', name: 'Bash', args: JSON.stringify({ command: fetch }) } }, { finish: 'tool_calls' }] },
      { chunks: [{ text: 'ok' }, { finish: 'stop' }] },
    );
    const { turnId } = await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'fetch' });
    const request = await eventually(() => {
      const found = h!.sessionEvents('approval.requested').find((e) => (e as Requested).kind === 'network') as Requested | undefined;
      if (!found) throw new Error('not asked yet');
      return found;
    }, 15_000);
    expect(request).toMatchObject({ turnId, callId: 'net1', display: { kind: 'network', host: '127.0.0.1', port }, approvalRule: `127.0.0.1:${port}` });
    await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: request.requestId, answer: { decision: 'approve', scope: 'always' } });
    await h.core.turnDone(h.session.id);
    const result = h.sessionEvents('tool.call.result').find((e) => (e as { callId: string }).callId === 'net1') as { display: { output: string } };
    expect(result.display.output).toContain('hello from the host');
    const local = JSON.parse(await readFile(join(h.workspace, '.deft', 'settings.local.json'), 'utf8')) as {
      sandbox: { network: { allowedDomains: string[] } };
    };
    expect(local.sandbox.network.allowedDomains).toEqual([`127.0.0.1:${port}`]);
    // Allowed now: no second question.
    const again = await callTool(h, 'Bash', { command: fetch });
    expect(again.content).toContain('hello from the host');
    expect(h.sessionEvents('approval.requested').filter((e) => (e as Requested).kind === 'network')).toHaveLength(1);
  });
});

it('reports the sandbox status on the workspace info', async () => {
  h = await createHarness({ sandboxSupport: { kind: null, reason: 'bubblewrap (bwrap) is not installed.', install: 'Install bubblewrap.' } });
  expect((await h.core.handlers.getWorkspace({})).sandbox).toEqual({
    available: false,
    enabled: false,
    reason: 'bubblewrap (bwrap) is not installed.',
    install: 'Install bubblewrap.',
  });
});
