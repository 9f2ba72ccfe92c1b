import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dispatchCommand } from '../../../host/dispatch';
import { exportFileName } from '#infra/sessions/export';
import { withoutReminders } from '#test-support/mock-steps';
import { createHarness } from '#test-support/harness';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

const send = (name: Parameters<typeof dispatchCommand>[1], input: unknown) => dispatchCommand(h.core.handlers, name, input);

describe('sessions as a library', () => {
  it('renames a session (written to meta.json at once); its first prompt no longer replaces the title', async () => {
    h = await createHarness();
    const renamed = await send('renameSession', { sessionId: h.session.id, title: '  Money   refactor  ' });
    expect(renamed).toMatchObject({ ok: true, result: { session: { title: 'Money refactor' } } });
    expect(JSON.stringify(renamed)).not.toContain('named');
    const metaPath = join(h.home, 'sessions', (await readdir(join(h.home, 'sessions')))[0]!, h.session.id, 'meta.json');
    expect(JSON.parse(await readFile(metaPath, 'utf8'))).toMatchObject({ title: 'Money refactor', named: true });
    await h.run('Fix the rounding bug in money.js');
    const { sessions } = await h.core.handlers.listSessions({});
    expect(sessions[0]!.title).toBe('Money refactor');
    expect(await send('renameSession', { sessionId: h.session.id, title: '   ' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(await send('renameSession', { sessionId: '../../etc', title: 'x' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('searches titles and the text of prompts and answers, as plain text in any case', async () => {
    h = await createHarness();
    await h.run('Explain the ledger (a+b)* module');
    const second = (await h.core.handlers.createSession({})).session.id;
    h.server.enqueue({ chunks: [{ text: 'The Interest rate lives in rates.ts.' }, { finish: 'stop' }] });
    await h.run('Where is the rate?', second);
    const byAnswer = await send('searchSessions', { query: 'INTEREST RATE' });
    expect(byAnswer).toMatchObject({
      ok: true,
      result: { hits: [{ sessionId: second, matchedIn: 'text', snippet: 'The Interest rate lives in rates.ts.' }], searched: 2 },
    });
    const byTitle = await send('searchSessions', { query: 'ledger' });
    expect(byTitle).toMatchObject({ ok: true, result: { hits: [{ sessionId: h.session.id, matchedIn: 'title' }] } });
    // Regex syntax is text, not a pattern: "(a+b)*" finds itself and nothing else.
    expect(await send('searchSessions', { query: '(a+b)*' })).toMatchObject({ ok: true, result: { hits: [{ sessionId: h.session.id }] } });
    expect(await send('searchSessions', { query: '.*' })).toMatchObject({ ok: true, result: { hits: [] } });
    // Quotes and backslashes are found through the log's JSON escaping.
    await h.run('path C:\\temp\\"x"', second);
    expect(await send('searchSessions', { query: 'C:\\temp\\"x"' })).toMatchObject({ ok: true, result: { hits: [{ sessionId: second }] } });
    expect(await send('searchSessions', { query: 'x'.repeat(201) })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(await send('searchSessions', { query: '' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('exports Markdown (prompts, answers, tool calls) and the raw log, under a file name that cannot leave the folder', async () => {
    h = await createHarness();
    await writeFile(join(h.workspace, 'a.txt'), 'alpha\n');
    h.server.enqueue({ chunks: [{ toolCall: { id: 'r1', name: 'Read', args: JSON.stringify({ path: 'a.txt' }) } }, { finish: 'tool_calls' }] });
    h.server.enqueue({ chunks: [{ text: 'It says ```alpha```.' }, { finish: 'stop' }] });
    await h.run('Read a.txt');
    await send('renameSession', { sessionId: h.session.id, title: '../../etc/passwd\u0000 <b>' });
    const md = await send('exportSession', { sessionId: h.session.id, format: 'markdown' });
    if (!md.ok) throw new Error(md.error.message);
    const result = md.result as { fileName: string; content: string; mimeType: string; logPath: string };
    expect(result.fileName).toMatch(/^etc-passwd-b-[\w-]+\.md$/);
    expect(result.mimeType).toBe('text/markdown');
    expect(result.content).toContain('## You\n\nRead a.txt');
    expect(result.content).toContain('**Tool** — Read: Read a.txt');
    expect(result.content).toContain('### Deft\n\nIt says ```alpha```.');
    const raw = await send('exportSession', { sessionId: h.session.id, format: 'jsonl' });
    if (!raw.ok) throw new Error(raw.error.message);
    const jsonl = raw.result as { content: string; fileName: string; logPath: string };
    expect(jsonl.content).toBe(await readFile(jsonl.logPath, 'utf8'));
    expect(jsonl.fileName.endsWith('.jsonl')).toBe(true);
    expect(await send('exportSession', { sessionId: h.session.id, format: 'html' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(exportFileName({ id: 'x/../y', title: '...' }, 'markdown')).toBe('session-xy.md');
  });

  it('switches the model for the next turns of one session only', async () => {
    h = await createHarness();
    expect(await send('setSessionModel', { sessionId: h.session.id, model: 'mock-model-large' })).toMatchObject({
      ok: true,
      result: { session: { model: 'mock-model-large' } },
    });
    await h.run('hello');
    expect(h.server.requests.at(-1)!.body.model).toBe('mock-model-large');
    const other = (await h.core.handlers.createSession({})).session.id;
    await h.run('hello', other);
    expect(h.server.requests.at(-1)!.body.model).toBe('mock-model');
    await send('setSessionModel', { sessionId: h.session.id, model: null });
    await h.run('again');
    expect(h.server.requests.at(-1)!.body.model).toBe('mock-model');
    expect(await send('setSessionModel', { sessionId: h.session.id, model: 'two\nlines' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });

  it('says where data lives and how much disk the sessions use', async () => {
    h = await createHarness();
    await h.run('hello');
    const info = await send('getDataInfo', {});
    expect(info).toMatchObject({ ok: true, result: { home: h.home, sessionCount: 1, partial: false } });
    const { workspaceBytes, allSessionsBytes } = (info as { result: { workspaceBytes: number; allSessionsBytes: number } }).result;
    expect(workspaceBytes).toBeGreaterThan(100);
    expect(allSessionsBytes).toBeGreaterThanOrEqual(workspaceBytes);
  });
});

describe('@-mentions in a prompt', () => {
  it('lists mentioned workspace files for the model and keeps them on the turn for the window', async () => {
    h = await createHarness();
    await mkdir(join(h.workspace, 'src'));
    await writeFile(join(h.workspace, 'src', 'money.js'), 'x');
    const sent = await send('sendPrompt', {
      sessionId: h.session.id,
      text: 'Look at @src/money.js',
      mentions: [{ path: 'src/money.js', label: 'src/money.js' }],
    });
    expect(sent.ok).toBe(true);
    await h.core.turnDone(h.session.id);
    const user = withoutReminders(h.server.requests[0]!.body.messages).find((m) => m.role === 'user')!;
    expect(user.content).toBe('Look at @src/money.js\n\nFiles the user referred to with @ (open them with Read when they matter):\n- src/money.js');
    expect(h.sessionEvents('turn.started')[0]).toMatchObject({ mentions: [{ path: 'src/money.js', label: 'src/money.js' }] });
  });

  it('refuses mentions outside the workspace, through a symlink out, of secret files, and of missing files', async () => {
    h = await createHarness();
    await writeFile(join(h.workspace, '.env'), 'KEY=1');
    await symlink('/etc', join(h.workspace, 'etc-link'));
    const attempts = [
      { path: '../outside.txt', why: /outside the workspace/ },
      { path: '/etc/passwd', why: /only files inside the workspace/ },
      { path: 'etc-link/passwd', why: /symlink/ },
      { path: '.env', why: /sensitive file/ },
      { path: 'missing.txt', why: /does not exist/ },
      { path: join(h.home, 'sessions', 'x', 'attachments', '..', '..', 'settings.json'), why: /only files inside the workspace/ },
    ];
    for (const { path, why } of attempts) {
      const reply = await send('sendPrompt', { sessionId: h.session.id, text: 'hi', mentions: [{ path, label: 'x' }] });
      expect(reply, path).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
      expect((reply as { error: { message: string } }).error.message, path).toMatch(why);
    }
    expect(h.server.requests).toHaveLength(0);
  });

  it('accepts a file dropped into the window (saved with the session) and tells the model its path', async () => {
    h = await createHarness();
    const saved = await send('saveAttachment', { sessionId: h.session.id, name: 'notes.txt', data: Buffer.from('remember the milk\n').toString('base64') });
    expect(saved).toMatchObject({ ok: true, result: { attachment: { kind: 'file', name: 'notes.txt' } } });
    const path = (saved as { result: { attachment: { path: string } } }).result.attachment.path;
    await send('sendPrompt', { sessionId: h.session.id, text: 'Summarise @notes.txt', mentions: [{ path, label: 'notes.txt' }] });
    await h.core.turnDone(h.session.id);
    const user = withoutReminders(h.server.requests[0]!.body.messages).find((m) => m.role === 'user')!;
    expect(user.content).toContain(`- @notes.txt (a file the user dropped in): ${path}`);
    expect(await send('saveAttachment', { sessionId: h.session.id, name: '.env.production', data: Buffer.from('K=1').toString('base64') })).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/secret/) },
    });
  });
});
