import { localEnvironment } from '#infra/environment/local/local-environment';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_RESULTS, startSearchMock } from '#test-support/web-servers';
import { type ToolEnv, type ToolResult, isExecution } from '#contract/tool';
import type { SearchConfig } from '../../search/provider';
import { webSearchTool } from './web-search';
import { inputSchemaOf } from '#contract/tool-input';

const env: ToolEnv = {
  environment: localEnvironment(),
  workspace: '/ws',
  home: '/home',
  sessionId: 's',
  sessionDir: '/tmp',
  capabilities: { imageInput: false },
  extraRoots: () => [],
};

async function search(config: SearchConfig, query = 'deft web tools', timeoutMs?: number): Promise<ToolResult> {
  const tool = webSearchTool({ search: async () => config, ...(timeoutMs ? { timeoutMs } : {}) });
  const resolved = await tool.resolveExecution(inputSchemaOf(tool.input).parse({ query }), env);
  if (!isExecution(resolved)) return resolved;
  return resolved.execute({ signal: new AbortController().signal, onUpdate: () => {}, callId: 'c', turnId: 't', step: 1 });
}

const text = (result: ToolResult) => (typeof result.output === 'string' ? result.output : '');

describe.each(['searxng', 'brave', 'tavily'] as const)('WebSearch with %s', (provider) => {
  let mock: Awaited<ReturnType<typeof startSearchMock>>;
  let config: SearchConfig;
  beforeAll(async () => {
    mock = await startSearchMock(provider, provider === 'searxng' ? {} : { key: 'good-key' });
    config = { provider, baseUrl: mock.url, apiKeySource: 'stored', ...(provider === 'searxng' ? {} : { apiKey: 'good-key' }) };
  });
  afterAll(() => mock.close());

  it('formats results: one block per result, separated by ---, then a citation reminder', async () => {
    mock.state.behaviour = 'results';
    const result = await search(config);
    expect(result.isError).toBeFalsy();
    const blocks = text(result).split('\n---\n');
    expect(blocks).toHaveLength(2);
    const site = provider === 'brave' ? 'Deft docs' : 'deft.example';
    expect(blocks[0]).toBe(
      [
        `Title: ${SAMPLE_RESULTS[0]!.title}`,
        `Site: ${site}`,
        'Date: 2026-03-01',
        'URL: https://deft.example/docs',
        'Snippet: Deft reads, edits and runs your code safely.',
      ].join('\n'),
    );
    expect(blocks[1]).toContain('Title: Web tools & safety\nSite: blog.example.org\nURL: https://blog.example.org/web-tools');
    expect(result.note).toContain('cite the pages as Markdown links');
    expect(result.display).toMatchObject({
      kind: 'web_results',
      query: 'deft web tools',
      results: [{ url: 'https://deft.example/docs' }, { url: 'https://blog.example.org/web-tools' }],
    });
    const request = mock.requests.at(-1)!;
    if (provider === 'tavily') expect(JSON.parse(request.body)).toMatchObject({ query: 'deft web tools' });
    else expect(new URL(request.url, 'http://x').searchParams.get('q')).toBe('deft web tools');
    if (provider === 'searxng') expect(request.url).toContain('format=json');
  });

  it('says when there are no results', async () => {
    mock.state.behaviour = 'empty';
    const result = await search(config);
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('No search results found.');
  });

  it('classifies a rejected key as auth, with what to do', async () => {
    mock.state.behaviour = 401;
    const result = await search(config);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^Web search failed \(auth\): .*HTTP 401.*Check the key in Settings → Web/);
  });

  it('classifies 429 as a rate limit, with the wait the provider asked for', async () => {
    mock.state.behaviour = 429;
    const result = await search(config);
    expect(text(result)).toMatch(/^Web search failed \(rate limit\): .*HTTP 429.*retry after 30 s/);
  });

  it('times out', async () => {
    mock.state.behaviour = 'hang';
    const result = await search(config, 'slow', 300);
    expect(text(result)).toMatch(/^Web search failed \(timeout\): .* did not answer within 0.3 s/);
  });

  it('names provider errors and answers that are not JSON', async () => {
    mock.state.behaviour = 500;
    expect(text(await search(config))).toMatch(/^Web search failed \(provider error\): .*HTTP 500/);
    mock.state.behaviour = 'not-json';
    expect(text(await search(config))).toContain('is not the JSON expected');
  });
});

describe('WebSearch configuration errors', () => {
  it('needs a key for the commercial providers, and says where to put it', async () => {
    const result = await search({ provider: 'brave', baseUrl: 'http://127.0.0.1:1', apiKeySource: 'none' });
    expect(text(result)).toContain('Brave Search needs an API key and none is set: add it in Settings → Web, or set DEFT_SEARCH_API_KEY.');
  });

  it('says when the provider cannot be reached', async () => {
    const mock = await startSearchMock('searxng');
    const url = mock.url;
    await mock.close();
    const result = await search({ provider: 'searxng', baseUrl: url, apiKeySource: 'none' });
    expect(text(result)).toMatch(/^Web search failed \(network\): Could not reach SearXNG at http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
  });

  it('tells SearXNG admins to enable the json format when it answers 403', async () => {
    const mock = await startSearchMock('searxng');
    mock.state.behaviour = 403;
    try {
      expect(text(await search({ provider: 'searxng', baseUrl: mock.url, apiKeySource: 'none' }))).toContain('Enable the json format in its settings.yml');
    } finally {
      await mock.close();
    }
  });
});
