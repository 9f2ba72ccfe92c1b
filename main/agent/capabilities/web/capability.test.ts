import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { type LocalServer, send, startSearchMock, startServer } from '#test-support/web-servers';
import { TrustStore } from '#infra/settings/trust';
import { createHarness } from '#test-support/harness';
import { callChunk, textReply, toolMessages, toolStep } from '#test-support/mock-steps';
import { waitFor } from '#test-support/wait';
import { WebSettings } from './settings';
import type { HostCapabilities } from '#contract/host';
import { cliHost, webHost } from '../../../host/hosts';
import { workspacePlace } from '#infra/environment/workspace-place';

type Harness = Awaited<ReturnType<typeof createHarness>>;
type Requested = Extract<SessionEvent, { type: 'approval.requested' }>;
let h: Harness;
let docs: LocalServer;
let other: LocalServer;

beforeAll(async () => {
  docs = await startServer(send(200, 'text/plain', 'documentation page'));
  other = await startServer(send(200, 'text/plain', 'another host'));
});
afterAll(async () => {
  await docs.close();
  await other.close();
});
beforeEach(() => {
  docs.requests.length = 0;
  other.requests.length = 0;
});
afterEach(async () => {
  await h?.dispose();
});

/** Merge into the harness's ~/.deft/settings.json (it holds the provider and the default mode). */
async function userSettings(hh: Harness, extra: Record<string, unknown>): Promise<void> {
  const path = join(hh.home, 'settings.json');
  const current = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  await writeFile(path, JSON.stringify({ ...current, ...extra }));
}

async function web(options: { host?: HostCapabilities; mode?: 'ask' | 'accept-edits' | 'yolo'; hosts?: string[] } = {}): Promise<Harness> {
  const hh = await createHarness({ host: options.host ?? webHost, permissionMode: options.mode ?? 'ask' });
  await userSettings(hh, { web: { allowPrivateHosts: options.hosts ?? [docs.authority, other.authority] } });
  return hh;
}

const pending = (hh: Harness, count = 1) =>
  waitFor(() => hh.sessionEvents('approval.requested').length >= count && (hh.sessionEvents('approval.requested')[count - 1] as Requested));

describe('FetchURL permission', () => {
  it('asks on the first fetch from a host, offering that host for the session or always', async () => {
    h = await web();
    h.server.enqueue(toolStep(callChunk('FetchURL', { url: `${docs.url}/a` })), textReply('done'));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'read the docs' });
    const request = await pending(h);
    expect(request).toMatchObject({
      toolName: 'FetchURL',
      display: { kind: 'url_fetch', url: `${docs.url}/a` },
      approvalRule: `FetchURL(http://${docs.authority}/*)`,
      approvalScope: docs.authority,
      reason: `This reaches ${docs.authority}, which has not been approved in this session.`,
    });
    expect(docs.requests).toHaveLength(0);
    await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: request.requestId, answer: { decision: 'approve', scope: 'once' } });
    await h.core.turnDone(h.session.id);
    expect(toolMessages(h)[0]).toContain('documentation page');
  });

  it('"this host for the session" covers the next fetch to it and not to another host', async () => {
    h = await web();
    h.server.enqueue(
      toolStep(callChunk('FetchURL', { url: `${docs.url}/a` })),
      toolStep(callChunk('FetchURL', { url: `${docs.url}/b?x=1` })),
      toolStep(callChunk('FetchURL', { url: `${other.url}/` })),
      textReply('done'),
    );
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'read' });
    const first = await pending(h);
    await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: first.requestId, answer: { decision: 'approve', scope: 'session' } });
    const second = await pending(h, 2);
    expect(second.display).toEqual({ kind: 'url_fetch', url: `${other.url}/` });
    expect(docs.requests.map((r) => r.url)).toEqual(['/a', '/b?x=1']);
    await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: second.requestId, answer: { decision: 'reject' } });
    await h.core.turnDone(h.session.id);
    expect(other.requests).toHaveLength(0);
  });

  it('"always this host" stores FetchURL(scheme://host/*) in .deft/settings.local.json', async () => {
    h = await web();
    h.server.enqueue(toolStep(callChunk('FetchURL', { url: `${docs.url}/a` })), textReply('done'));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'read' });
    const request = await pending(h);
    await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: request.requestId, answer: { decision: 'approve', scope: 'always' } });
    await h.core.turnDone(h.session.id);
    const saved = JSON.parse(await readFile(join(h.workspace, '.deft/settings.local.json'), 'utf8')) as { permissions: { allow: string[] } };
    expect(saved.permissions.allow).toEqual([`FetchURL(http://${docs.authority}/*)`]);
  });

  it('applies deny rules to the normalised URL, so another spelling does not dodge them', async () => {
    h = await web({ mode: 'yolo' });
    await userSettings(h, { permissions: { defaultMode: 'yolo', deny: ['FetchURL(*internal*)'] } });
    h.server.enqueue(toolStep(callChunk('FetchURL', { url: `${docs.url.toUpperCase().replace('HTTP', 'HtTp')}/%69nternal/page` })), textReply('done'));
    await h.run('read');
    expect(toolMessages(h)[0]).toContain('FetchURL is blocked by the deny rule "FetchURL(*internal*)"');
    expect(docs.requests).toHaveLength(0);
  });

  it('runs without asking in yolo mode', async () => {
    h = await web({ mode: 'yolo' });
    h.server.enqueue(toolStep(callChunk('FetchURL', { url: `${docs.url}/y` })), textReply('done'));
    await h.run('read');
    expect(toolMessages(h)[0]).toContain('documentation page');
    expect(h.sessionEvents('approval.requested')).toHaveLength(0);
  });

  it('headless, refuses and names the rule that would allow the host', async () => {
    h = await web({ host: cliHost() });
    h.server.enqueue(toolStep(callChunk('FetchURL', { url: `${docs.url}/a` })), textReply('done'));
    await h.run('read');
    const [message] = toolMessages(h);
    expect(message).toContain('FetchURL needs approval');
    expect(message).toContain(`add the rule "FetchURL(http://${docs.authority}/*)" to "permissions.allow"`);
    expect(message).toContain('--permission-mode yolo');
    expect(docs.requests).toHaveLength(0);
  });

  it('refuses a private address before asking anyone, when the host is not allowed', async () => {
    h = await web({ hosts: [] });
    h.server.enqueue(toolStep(callChunk('FetchURL', { url: `${docs.url}/a` })), textReply('done'));
    await h.run('read');
    expect(toolMessages(h)[0]).toContain('Refused to fetch');
    expect(h.sessionEvents('approval.requested')).toHaveLength(0);
  });

  it("uses a workspace's own allowed hosts only once the folder is trusted", async () => {
    h = await web({ mode: 'yolo', hosts: [] });
    await mkdir(join(h.workspace, '.deft'));
    await writeFile(join(h.workspace, '.deft/settings.json'), JSON.stringify({ web: { allowPrivateHosts: [docs.authority] } }));
    h.server.enqueue(
      toolStep(callChunk('FetchURL', { url: `${docs.url}/a` })),
      textReply('done'),
      toolStep(callChunk('FetchURL', { url: `${docs.url}/a` })),
      textReply('done'),
    );
    await h.run('read');
    expect(toolMessages(h)[0]).toContain('Refused to fetch');
    expect((await h.core.handlers.getWebSettings({})).workspaceHosts).toEqual({ hosts: [docs.authority], trusted: false });
    await new TrustStore(h.home, workspacePlace(h.workspace)).trust();
    await h.run('read again');
    expect(toolMessages(h).at(-1)).toContain('documentation page');
  });
});

describe('WebSearch', () => {
  it('is offered only when a provider is configured, and runs without asking in ask mode', async () => {
    const mock = await startSearchMock('searxng');
    try {
      h = await web();
      h.server.enqueue(textReply('no search'));
      await h.run('hello');
      const offered = () => (h.server.requests.at(-1)!.body.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
      expect(offered()).toContain('FetchURL');
      expect(offered()).not.toContain('WebSearch');
      await h.core.handlers.setWebSettings({ search: { provider: 'searxng', baseUrl: mock.url }, allowPrivateHosts: [] });
      h.server.enqueue(toolStep(callChunk('WebSearch', { query: 'deft' })), textReply('found'));
      await h.run('search');
      expect(offered()).toContain('WebSearch');
      expect(toolMessages(h)[0]).toContain('Title: Deft — a desktop coding agent');
      expect(h.sessionEvents('approval.requested')).toHaveLength(0);
    } finally {
      await mock.close();
    }
  });
});

describe('Settings → Web', () => {
  it('keeps the key in the key store, not in settings.json, and tests a provider before it is saved', async () => {
    const mock = await startSearchMock('brave', { key: 'brave-key' });
    try {
      h = await web();
      const saved = await h.core.handlers.setWebSettings({
        search: { provider: 'brave', baseUrl: mock.url, apiKey: 'brave-key' },
        allowPrivateHosts: ['intranet.local', '127.0.0.1:8080'],
      });
      expect(saved).toMatchObject({
        search: { provider: 'brave', baseUrl: mock.url, hasApiKey: true, apiKeySource: 'stored' },
        allowPrivateHosts: ['intranet.local', '127.0.0.1:8080'],
      });
      const file = await readFile(join(h.home, 'settings.json'), 'utf8');
      expect(file).not.toContain('brave-key');
      expect(JSON.parse(file)).toMatchObject({ provider: { model: 'mock-model' }, web: { search: { provider: 'brave', baseUrl: mock.url } } });
      const tested = await h.core.handlers.testWebSearch({ search: { provider: 'brave', baseUrl: mock.url }, query: 'deft' });
      expect(tested.results[0]).toMatchObject({ title: 'Deft — a desktop coding agent', site: 'Deft docs' });
      await expect(h.core.handlers.testWebSearch({ search: { provider: 'brave', baseUrl: mock.url, apiKey: 'wrong' }, query: 'deft' })).rejects.toMatchObject({
        code: 'provider_auth',
      });
      // Off: the provider goes, the key stays stored for later.
      expect((await h.core.handlers.setWebSettings({ search: null, allowPrivateHosts: [] })).search).toBeNull();
    } finally {
      await mock.close();
    }
  });

  it('DEFT_SEARCH_API_KEY wins over the stored key', async () => {
    h = await web();
    await userSettings(h, { web: { search: { provider: 'tavily' } } });
    const secrets = { kind: 'file' as const, get: async () => 'stored-key', set: async () => {} };
    const settings = new WebSettings(h.home, h.workspace, secrets, { DEFT_SEARCH_API_KEY: 'env-key' });
    expect(await settings.search()).toEqual({ provider: 'tavily', baseUrl: 'https://api.tavily.com', apiKey: 'env-key', apiKeySource: 'env' });
    expect((await new WebSettings(h.home, h.workspace, secrets, {}).search())?.apiKeySource).toBe('stored');
  });

  it('reports entries it cannot use', async () => {
    h = await web();
    await userSettings(h, { web: { allowPrivateHosts: ['ok.local', 'http://not a host/'] } });
    const view = await h.core.handlers.getWebSettings({});
    expect(view.allowPrivateHosts).toEqual(['ok.local']);
    expect(view.problems[0]).toContain('"http://not a host/" in web.allowPrivateHosts');
  });
});
