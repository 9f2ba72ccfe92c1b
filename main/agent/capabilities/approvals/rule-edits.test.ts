import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { dispatchCommand } from '../../../host/dispatch';
import { createHarness, tempDir } from '#test-support/harness';
import { standInTools } from '#test-support/stand-in-tools';
import { callChunk, toolMessages, toolStep } from '#test-support/mock-steps';
import { waitFor } from '#test-support/wait';
import { TrustStore } from '#infra/settings/trust';
import { cliHost, webHost } from '../../../host/hosts';
import { workspacePlace } from '#infra/environment/workspace-place';

type Harness = Awaited<ReturnType<typeof createHarness>>;
type Requested = Extract<SessionEvent, { type: 'approval.requested' }>;
let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

const send = (name: Parameters<typeof dispatchCommand>[1], input: unknown) => dispatchCommand(h.core.handlers, name, input);
const readJson = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as { permissions?: Record<string, unknown>; [k: string]: unknown };

describe('editing permission rules from Settings', () => {
  it('adds and removes rules in the chosen file, keeping everything else in it', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask' });
    const user = join(h.home, 'settings.json');
    const before = await readJson(user);
    expect(await send('editPermissionRule', { action: 'add', source: 'user', decision: 'deny', rule: 'Bash(curl *)' })).toMatchObject({
      ok: true,
      result: { permissions: { rules: [{ decision: 'deny', pattern: 'Bash(curl *)', source: 'user', file: user }] } },
    });
    const after = await readJson(user);
    expect(after.provider).toEqual(before.provider);
    expect(after.permissions).toMatchObject({ defaultMode: 'ask', deny: ['Bash(curl *)'] });
    await send('editPermissionRule', { action: 'add', source: 'project', decision: 'ask', rule: 'Bash(git push *)' });
    expect((await readJson(join(h.workspace, '.deft/settings.json'))).permissions).toEqual({ ask: ['Bash(git push *)'] });
    expect(await send('editPermissionRule', { action: 'remove', source: 'user', decision: 'deny', rule: 'Bash(curl *)' })).toMatchObject({ ok: true });
    expect((await readJson(user)).permissions).toMatchObject({ deny: [] });
    expect(await send('editPermissionRule', { action: 'remove', source: 'user', decision: 'deny', rule: 'Bash(curl *)' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
  });

  it('refuses rules that do not parse, and never overwrites a file that does not parse', async () => {
    h = await createHarness({ host: webHost });
    for (const rule of ['Bash(npm test', 'Bash)', '(x)', 'Ba sh(ls)', '*'.repeat(5000)]) {
      expect(await send('editPermissionRule', { action: 'add', source: 'local', decision: 'allow', rule }), rule).toMatchObject({
        ok: false,
        error: { code: 'invalid_request' },
      });
    }
    await mkdir(join(h.workspace, '.deft'));
    await writeFile(join(h.workspace, '.deft/settings.local.json'), '{ "permissions": { "allow": [ } ');
    const reply = await send('editPermissionRule', { action: 'add', source: 'local', decision: 'deny', rule: 'Bash(rm *)' });
    expect(reply).toMatchObject({ ok: false, error: { message: expect.stringContaining('not valid JSON') } });
    expect(await readFile(join(h.workspace, '.deft/settings.local.json'), 'utf8')).toBe('{ "permissions": { "allow": [ } ');
    expect(await send('editPermissionRule', { action: 'add', source: 'elsewhere', decision: 'allow', rule: 'Read' })).toMatchObject({ ok: false });
  });

  it('never writes through a symlinked .deft folder or settings file a repository ships', async () => {
    h = await createHarness({ host: webHost });
    const outside = await tempDir();
    await symlink(outside, join(h.workspace, '.deft'));
    expect(await send('editPermissionRule', { action: 'add', source: 'local', decision: 'deny', rule: 'Read' })).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('symbolic link') },
    });
    await expect(readFile(join(outside, 'settings.local.json'), 'utf8')).rejects.toThrow();

    const h2 = await createHarness({ host: webHost });
    try {
      const target = join(outside, 'bashrc');
      await writeFile(target, 'export PATH=/usr/bin\n');
      await mkdir(join(h2.workspace, '.deft'));
      await symlink(target, join(h2.workspace, '.deft/settings.json'));
      const reply = await dispatchCommand(h2.core.handlers, 'editPermissionRule', { action: 'add', source: 'project', decision: 'deny', rule: 'Read' });
      expect(reply).toMatchObject({ ok: false, error: { message: expect.stringContaining('symbolic link') } });
      expect(await readFile(target, 'utf8')).toBe('export PATH=/usr/bin\n');
    } finally {
      await h2.dispose();
    }
  });

  it("an allow rule added to an untrusted folder works on its own; the folder's other allow rules stay unused", async () => {
    const ran: string[] = [];
    h = await createHarness({ host: cliHost(), permissionMode: 'ask', tools: () => standInTools(ran) });
    await mkdir(join(h.workspace, '.deft'));
    await writeFile(join(h.workspace, '.deft/settings.json'), JSON.stringify({ permissions: { allow: ['Bash(*)'], defaultMode: 'yolo' } }));
    const added = await send('editPermissionRule', { action: 'add', source: 'project', decision: 'allow', rule: 'Bash(npm test)' });
    expect(added).toMatchObject({
      ok: true,
      result: {
        permissions: {
          trust: { trusted: false, ignored: ['allow Bash(*) (' + join(h.workspace, '.deft/settings.json') + ')', expect.stringContaining('defaultMode yolo')] },
        },
      },
    });
    h.server.enqueue(toolStep(callChunk('Bash', { command: 'npm test' }, 'a'), callChunk('Bash', { command: 'rm -rf build' }, 'b')));
    await h.run('go');
    expect(ran).toEqual(['npm test']);
    expect(toolMessages(h)[1]).toContain('needs approval');
    // Removing it withdraws the approval: the repository's own copy of the rule is not used in the user's name.
    await writeFile(join(h.workspace, '.deft/settings.local.json'), JSON.stringify({ permissions: { allow: ['Bash(npm test)'] } }));
    await send('editPermissionRule', { action: 'remove', source: 'project', decision: 'allow', rule: 'Bash(npm test)' });
    expect((await new TrustStore(h.home, workspacePlace(h.workspace)).get()).approvedRules).toEqual([]);
    const { permissions } = await h.core.handlers.getPermissions({});
    expect(permissions.rules.filter((r) => r.decision === 'allow' && !r.ignored)).toEqual([]);
    expect(permissions.rules.filter((r) => r.ignored).map((r) => r.pattern)).toEqual(['Bash(*)', 'Bash(npm test)']);
  });

  it('sets the default mode in the user file, and lists and forgets trusted folders', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask' });
    expect(await send('setDefaultMode', { mode: 'accept-edits' })).toMatchObject({ ok: true, result: { mode: 'accept-edits' } });
    expect((await readJson(join(h.home, 'settings.json'))).permissions).toMatchObject({ defaultMode: 'accept-edits' });
    expect(await send('setDefaultMode', { mode: null })).toMatchObject({ ok: true, result: { mode: 'ask' } });
    expect(await send('setDefaultMode', { mode: 'bypass' })).toMatchObject({ ok: false });
    await h.core.handlers.trustWorkspace({});
    expect(await send('listTrustedFolders', {})).toEqual({
      ok: true,
      result: { folders: [{ path: h.workspace, trusted: true, approvedRules: [], current: true }] },
    });
    expect(await send('forgetFolderTrust', { path: h.workspace })).toMatchObject({
      ok: true,
      result: { folders: [], permissions: { trust: { trusted: false } } },
    });
    expect(await send('forgetFolderTrust', { path: '/nowhere' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });
});

describe('"Always allow" with a rule the user edits', () => {
  async function pending(count = 1): Promise<Requested> {
    return waitFor(() => h.sessionEvents('approval.requested').length >= count && (h.sessionEvents('approval.requested')[count - 1] as Requested));
  }

  it('proposes a prefix rule; the saved prefix rule covers the next call with other arguments', async () => {
    const ran: string[] = [];
    h = await createHarness({ host: webHost, permissionMode: 'ask', tools: () => standInTools(ran) });
    h.server.enqueue(toolStep(callChunk('Bash', { command: 'npm test -- --watch=false' })), toolStep(callChunk('Bash', { command: 'npm test -- -u' })));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'test' });
    const request = await pending();
    expect(request.approvalRule).toBe('Bash(npm test -- --watch=false)');
    expect(request.suggestedRules).toEqual(['Bash(npm test:*)']);
    const reply = await send('answerApproval', {
      sessionId: h.session.id,
      requestId: request.requestId,
      answer: { decision: 'approve', scope: 'always', rules: ['Bash(npm test:*)'] },
    });
    expect(reply).toEqual({ ok: true, result: { ok: true } });
    await h.core.turnDone(h.session.id);
    expect(ran).toEqual(['npm test -- --watch=false', 'npm test -- -u']);
    expect(h.sessionEvents('approval.requested')).toHaveLength(1);
    expect((await readJson(join(h.workspace, '.deft/settings.local.json'))).permissions).toEqual({ allow: ['Bash(npm test:*)'] });
  });

  it('covers a compound command part by part with the proposed rules', async () => {
    const ran: string[] = [];
    h = await createHarness({ host: webHost, permissionMode: 'ask', tools: () => standInTools(ran) });
    h.server.enqueue(
      toolStep(callChunk('Bash', { command: 'git diff src && npm test -- -q' })),
      toolStep(callChunk('Bash', { command: 'npm test && git diff' })),
      toolStep(callChunk('Bash', { command: 'npm test && rm -rf x' })),
    );
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'go' });
    const request = await pending();
    expect(request.suggestedRules).toEqual(['Bash(git diff:*)', 'Bash(npm test:*)']);
    await send('answerApproval', {
      sessionId: h.session.id,
      requestId: request.requestId,
      answer: { decision: 'approve', scope: 'session', rules: request.suggestedRules },
    });
    const third = await pending(2);
    expect(ran).toEqual(['git diff src && npm test -- -q', 'npm test && git diff']);
    expect((third.display as { command: string }).command).toBe('npm test && rm -rf x');
    await send('answerApproval', { sessionId: h.session.id, requestId: third.requestId, answer: { decision: 'reject' } });
    await h.core.turnDone(h.session.id);
  });

  it('refuses edited rules that do not parse, name another tool, or would not allow the call itself', async () => {
    h = await createHarness({ host: webHost, permissionMode: 'ask', tools: () => standInTools() });
    h.server.enqueue(toolStep(callChunk('Bash', { command: 'npm test -- -u' })));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'go' });
    const request = await pending();
    const attempt = (rules: string[], scope = 'always') =>
      send('answerApproval', { sessionId: h.session.id, requestId: request.requestId, answer: { decision: 'approve', scope, rules } });
    expect(await attempt(['Bash(npm test'])).toMatchObject({ ok: false, error: { message: expect.stringContaining('is not a rule') } });
    expect(await attempt(['*'])).toMatchObject({ ok: false, error: { message: expect.stringContaining('must name Bash') } });
    expect(await attempt(['B*(npm test:*)'])).toMatchObject({ ok: false, error: { message: expect.stringContaining('must name Bash') } });
    expect(await attempt(['Bash(npm run lint:*)'])).toMatchObject({ ok: false, error: { message: expect.stringContaining('would not allow this very call') } });
    expect(await attempt(['Bash(npm test:*)'], 'once')).toMatchObject({ ok: false });
    await expect(readFile(join(h.workspace, '.deft/settings.local.json'), 'utf8')).rejects.toThrow();
    // Still waiting: a refused answer does not settle the request.
    expect(await attempt(['Bash(npm test:*)'])).toEqual({ ok: true, result: { ok: true } });
    await h.core.turnDone(h.session.id);
  });
});
