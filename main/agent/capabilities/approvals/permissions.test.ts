import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { standInTools } from '#test-support/stand-in-tools';
import { createHarness } from '#test-support/harness';
import { callChunk, reminders, toolMessages, toolStep } from '#test-support/mock-steps';
import { waitFor } from '#test-support/wait';
import { TrustStore } from '#infra/settings/trust';
import { webHost } from '../../../host/hosts';
import { workspacePlace } from '#infra/environment/workspace-place';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

type Requested = Extract<SessionEvent, { type: 'approval.requested' }>;

describe('headless (deft run): nobody to ask', () => {
  it('denies a Write in ask mode with a message naming the rule that would allow it', async () => {
    h = await createHarness({ permissionMode: 'ask', tools: () => standInTools() });
    h.server.enqueue(toolStep(callChunk('Write', { path: 'a.txt', content: 'hello' })));
    await h.run('write a file');
    const [message] = toolMessages(h);
    expect(message).toContain('ERROR: Write needs approval');
    expect(message).toContain(`add the rule "Write(${join(h.workspace, 'a.txt')})" to "permissions.allow"`);
    expect(message).toContain('--permission-mode accept-edits');
    await expect(readFile(join(h.workspace, 'a.txt'), 'utf8')).rejects.toThrow();
  });

  it('judges a prompt sent right after a mode switch, without waiting for the switch to answer, by the new mode', async () => {
    h = await createHarness({ permissionMode: 'yolo', tools: () => standInTools() });
    h.server.enqueue(toolStep(callChunk('Write', { path: 'a.txt', content: 'hello' })));
    // As a window sends them: the switch, then the prompt on the same socket, neither waiting for the other's answer.
    const switched = h.core.handlers.setPermissionMode({ sessionId: h.session.id, mode: 'ask' });
    await h.run('write a file');
    await switched;
    expect(toolMessages(h)[0]).toContain('ERROR: Write needs approval');
    await expect(readFile(join(h.workspace, 'a.txt'), 'utf8')).rejects.toThrow();
  });

  it('runs the Write when an allow rule in .deft/settings.json covers it', async () => {
    h = await createHarness({ permissionMode: 'ask', tools: () => standInTools() });
    await mkdir(join(h.workspace, '.deft'));
    await new TrustStore(h.home, workspacePlace(h.workspace)).trust();
    await writeFile(join(h.workspace, '.deft/settings.json'), JSON.stringify({ permissions: { allow: ['Write(*.txt)'] } }));
    h.server.enqueue(toolStep(callChunk('Write', { path: 'a.txt', content: 'hello' })));
    await h.run('write a file');
    expect(toolMessages(h)).toEqual(['Wrote a.txt (5 characters).']);
    expect(await readFile(join(h.workspace, 'a.txt'), 'utf8')).toBe('hello');
  });

  it('does not let Bash(npm test) approve "npm test; rm -rf x"', async () => {
    const ran: string[] = [];
    h = await createHarness({ permissionMode: 'ask', tools: () => standInTools(ran) });
    await mkdir(join(h.workspace, '.deft'));
    await new TrustStore(h.home, workspacePlace(h.workspace)).trust();
    await writeFile(join(h.workspace, '.deft/settings.local.json'), JSON.stringify({ permissions: { allow: ['Bash(npm test)'] } }));
    h.server.enqueue(toolStep(callChunk('Bash', { command: 'npm test' }, 'b1'), callChunk('Bash', { command: 'npm test; rm -rf x' }, 'b2')));
    await h.run('test');
    expect(ran).toEqual(['npm test']);
    const [, second] = toolMessages(h);
    expect(second).toContain('Bash needs approval');
    expect(second).toContain('"Bash(npm test; rm -rf x)"');
  });

  it('uses --permission-mode semantics: accept-edits runs Write but not Bash', async () => {
    const ran: string[] = [];
    h = await createHarness({ permissionMode: 'ask', tools: () => standInTools(ran) });
    await h.core.handlers.setPermissionMode({ sessionId: h.session.id, mode: 'accept-edits' });
    h.server.enqueue(toolStep(callChunk('Write', { path: 'a.txt', content: 'x' }), callChunk('Bash', { command: 'ls' })));
    await h.run('go');
    expect(await readFile(join(h.workspace, 'a.txt'), 'utf8')).toBe('x');
    expect(ran).toEqual([]);
    expect(toolMessages(h)[1]).toContain('--permission-mode yolo');
  });
});

describe('approvals in the window', () => {
  async function pending(hh: Harness, count = 1): Promise<Requested> {
    return waitFor(() => hh.sessionEvents('approval.requested').length >= count && (hh.sessionEvents('approval.requested')[count - 1] as Requested));
  }

  it('never asks about an Edit that cannot apply; one a Write before it in the step may fix is asked about', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask' });
    await writeFile(join(h.workspace, 'a.txt'), 'one\n');
    h.server.enqueue(
      toolStep(
        callChunk('Edit', { path: 'a.txt', old_string: 'missing', new_string: 'two' }, 'e1'),
        callChunk('Edit', { path: 'gone.txt', old_string: 'one', new_string: 'two' }, 'e2'),
      ),
    );
    await h.run('edit');
    expect(h.sessionEvents('approval.requested')).toHaveLength(0);
    const [notFound, missing] = toolMessages(h);
    expect(notFound).toContain('old_string was not found in a.txt');
    expect(missing).toContain('gone.txt does not exist. To create a file, use Write.');
    // Their cards still say which file, as an Edit's card does.
    expect(h.sessionEvents('tool.call.started').map((e) => (e as { description: string }).description)).toEqual(['Edit a.txt', 'Edit gone.txt']);

    // A Write of the file earlier in the step: the Edit waits to be planned against what the Write leaves.
    h.server.enqueue(
      toolStep(
        callChunk('Write', { path: 'b.txt', content: 'fresh\n' }, 'w1'),
        callChunk('Edit', { path: 'b.txt', old_string: 'fresh', new_string: 'edited' }, 'e3'),
      ),
    );
    const { turnId } = await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'write then edit' });
    const write = await pending(h);
    expect(write).toMatchObject({ turnId, toolName: 'Write' });
    await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: write.requestId, answer: { decision: 'approve', scope: 'once' } });
    const edit = await pending(h, 2);
    expect(edit).toMatchObject({ toolName: 'Edit' });
    await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: edit.requestId, answer: { decision: 'approve', scope: 'once' } });
    await h.core.turnDone(h.session.id);
    expect(await readFile(join(h.workspace, 'b.txt'), 'utf8')).toBe('edited\n');
  });

  it('suspends the call with its display until the user approves it once', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask', tools: () => standInTools() });
    await writeFile(join(h.workspace, 'a.txt'), 'one\n');
    h.server.enqueue(toolStep(callChunk('Edit', { path: 'a.txt', old_string: 'one', new_string: 'two' })));
    const { turnId } = await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'edit' });
    const request = await pending(h);
    expect(request).toMatchObject({ turnId, kind: 'tool', toolName: 'Edit', display: { kind: 'diff', path: 'a.txt', before: 'one\n', after: 'two\n' } });
    expect(request.approvalRule).toBe(`Edit(${join(h.workspace, 'a.txt')})`);
    expect(await readFile(join(h.workspace, 'a.txt'), 'utf8')).toBe('one\n');
    // The session list says what waits for the user, so a window that opens now can point at it.
    const listed = async () => (await h.core.handlers.listSessions({})).sessions.find((x) => x.id === h.session.id)!;
    expect((await listed()).waiting).toEqual([{ id: request.requestId, turnId }]);
    await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: request.requestId, answer: { decision: 'approve', scope: 'once' } });
    await h.core.turnDone(h.session.id);
    expect((await listed()).waiting).toBeUndefined();
    expect(await readFile(join(h.workspace, 'a.txt'), 'utf8')).toBe('two\n');
    expect(h.sessionEvents('approval.resolved')).toMatchObject([{ requestId: request.requestId, outcome: 'approved', scope: 'once' }]);
  });

  it('"approve for session" stops further asks for that file, but not for others', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask', tools: () => standInTools() });
    h.server.enqueue(
      toolStep(callChunk('Write', { path: 'a.txt', content: '1' })),
      toolStep(callChunk('Write', { path: 'a.txt', content: '2' })),
      toolStep(callChunk('Write', { path: 'b.txt', content: '3' })),
    );
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'write' });
    const first = await pending(h);
    await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: first.requestId, answer: { decision: 'approve', scope: 'session' } });
    const second = await pending(h, 2);
    expect(second.display).toMatchObject({ path: 'b.txt' });
    expect(await readFile(join(h.workspace, 'a.txt'), 'utf8')).toBe('2');
    await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: second.requestId, answer: { decision: 'approve', scope: 'once' } });
    await h.core.turnDone(h.session.id);
    expect(h.sessionEvents('approval.requested')).toHaveLength(2);
  });

  it('"always allow" writes the rule to .deft/settings.local.json and tells the UI', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask', tools: () => standInTools() });
    await h.core.handlers.getPermissions({});
    h.server.enqueue(toolStep(callChunk('Bash', { command: 'npm run lint' })));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'lint' });
    const request = await pending(h);
    const reply = await h.core.handlers.answerApproval({
      sessionId: h.session.id,
      requestId: request.requestId,
      answer: { decision: 'approve', scope: 'always' },
    });
    expect(reply).toEqual({ ok: true });
    await h.core.turnDone(h.session.id);
    const saved = JSON.parse(await readFile(join(h.workspace, '.deft/settings.local.json'), 'utf8')) as { permissions: { allow: string[] } };
    expect(saved.permissions.allow).toEqual(['Bash(npm run lint)']);
    expect(h.events.find((e) => e.type === 'permissions.updated')).toMatchObject({
      permissions: { rules: [{ decision: 'allow', pattern: 'Bash(npm run lint)', source: 'local' }] },
    });
  });

  it("sends a rejection's feedback to the model", async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask', tools: () => standInTools() });
    h.server.enqueue(toolStep(callChunk('Write', { path: 'a.txt', content: 'x' })));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'write' });
    const request = await pending(h);
    await h.core.handlers.answerApproval({
      sessionId: h.session.id,
      requestId: request.requestId,
      answer: { decision: 'reject', feedback: 'Put it in docs/ instead.' },
    });
    await h.core.turnDone(h.session.id);
    expect(toolMessages(h)[0]).toBe(
      'ERROR: The user rejected this Write call, so it did not run. Their feedback: "Put it in docs/ instead.". Adjust your approach to it before trying again.',
    );
    expect(h.sessionEvents('approval.resolved')).toMatchObject([{ outcome: 'rejected', feedback: 'Put it in docs/ instead.' }]);
  });

  it('queues approvals from several sessions in order, each answered by its id', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask', tools: () => standInTools() });
    const other = (await h.core.handlers.createSession({})).session.id;
    h.server.enqueue(toolStep(callChunk('Write', { path: 'a.txt', content: 'a' })), toolStep(callChunk('Write', { path: 'b.txt', content: 'b' })));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'a' });
    await pending(h);
    await h.core.handlers.sendPrompt({ sessionId: other, text: 'b' });
    const [a, b] = await waitFor(() => {
      const all = h.events.filter((e): e is Requested => e.type === 'approval.requested');
      return all.length === 2 && all;
    });
    expect([a!.sessionId, b!.sessionId]).toEqual([h.session.id, other]);
    await expect(
      h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: b!.requestId, answer: { decision: 'approve', scope: 'once' } }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await h.core.handlers.answerApproval({ sessionId: other, requestId: b!.requestId, answer: { decision: 'approve', scope: 'once' } });
    await h.core.turnDone(other);
    expect(await readFile(join(h.workspace, 'b.txt'), 'utf8')).toBe('b');
    await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: a!.requestId, answer: { decision: 'approve', scope: 'once' } });
    await h.core.turnDone(h.session.id);
    expect(await readFile(join(h.workspace, 'a.txt'), 'utf8')).toBe('a');
  });

  it('gives up a pending approval when the turn is stopped', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask', tools: () => standInTools() });
    h.server.enqueue(toolStep(callChunk('Write', { path: 'a.txt', content: 'x' })));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'write' });
    const request = await pending(h);
    await h.core.handlers.cancelTurn({ sessionId: h.session.id });
    expect(await h.core.turnDone(h.session.id)).toMatchObject({ stopReason: 'cancelled' });
    expect(h.sessionEvents('approval.resolved')).toMatchObject([{ requestId: request.requestId, outcome: 'cancelled' }]);
    await expect(
      h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: request.requestId, answer: { decision: 'approve', scope: 'once' } }),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('switching to yolo settles the pending approval and tells the model about the new mode', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask', tools: () => standInTools() });
    h.server.enqueue(toolStep(callChunk('Write', { path: 'a.txt', content: 'x' })));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'write' });
    await pending(h);
    await h.core.handlers.setPermissionMode({ sessionId: h.session.id, mode: 'yolo' });
    await h.core.turnDone(h.session.id);
    expect(await readFile(join(h.workspace, 'a.txt'), 'utf8')).toBe('x');
    expect(h.sessionEvents('permission.mode.changed')).toMatchObject([{ mode: 'yolo', previous: 'ask' }]);
    // The model is told in a reminder after the results; the system prompt stays as it was.
    const [first, last] = [h.server.requests[0]!.body.messages, h.server.requests.at(-1)!.body.messages];
    expect(reminders(first).join('\n')).toContain('Permission mode: ask');
    expect(last.at(-1)).toEqual({ role: 'user', content: expect.stringMatching(/^<system-reminder>\nPermission mode: yolo — every call runs/) });
    expect(last[0]).toEqual(first[0]);
    expect((await h.core.handlers.getPermissions({ sessionId: h.session.id })).mode).toBe('yolo');
  });

  it('approves a protected path once only', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'yolo', tools: () => standInTools() });
    h.server.enqueue(toolStep(callChunk('Write', { path: '.git/hooks/pre-commit', content: 'x' })));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'hook' });
    const request = await pending(h);
    expect(request.approvalRule).toBeUndefined();
    expect(request.reason).toContain('protected');
    await expect(
      h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: request.requestId, answer: { decision: 'approve', scope: 'session' } }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
    await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: request.requestId, answer: { decision: 'reject' } });
    await h.core.turnDone(h.session.id);
  });

  it('reports invalid rules through getPermissions', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask' });
    await mkdir(join(h.workspace, '.deft'));
    await new TrustStore(h.home, workspacePlace(h.workspace)).trust();
    await writeFile(join(h.workspace, '.deft/settings.json'), JSON.stringify({ permissions: { deny: ['Bash(rm *'] } }));
    const { permissions } = await h.core.handlers.getPermissions({});
    expect(permissions.problems).toEqual([
      { file: join(h.workspace, '.deft/settings.json'), rule: 'Bash(rm *', message: expect.stringContaining('not closed') },
    ]);
  });

  it('trusting the folder lets its settings widen the default mode, and the open session is told', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask' });
    await mkdir(join(h.workspace, '.deft'));
    await writeFile(join(h.workspace, '.deft/settings.json'), JSON.stringify({ permissions: { defaultMode: 'yolo' } }));
    expect(await h.core.handlers.getPermissions({ sessionId: h.session.id })).toMatchObject({
      mode: 'ask',
      permissions: { trust: { trusted: false, ignored: [expect.stringContaining('defaultMode yolo')] } },
    });
    const { permissions } = await h.core.handlers.trustWorkspace({ sessionId: h.session.id });
    expect(permissions.trust).toEqual({ trusted: true, ignored: [] });
    expect((await h.core.handlers.getPermissions({ sessionId: h.session.id })).mode).toBe('yolo');
    expect(h.sessionEvents('permission.mode.changed')).toEqual([expect.objectContaining({ mode: 'yolo', previous: 'ask' })]);
  });
});
