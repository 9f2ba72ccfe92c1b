import { localEnvironment } from '#infra/environment/local/local-environment';
import { gzipSync } from 'node:zlib';
import type { LookupAddress } from 'node:dns';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalServer, pdfWithText, routes, send, startSelfSignedServer, startServer } from '#test-support/web-servers';
import { type ToolEnv, type ToolResult, isExecution } from '#contract/tool';
import { type Resolver, checkedLookup } from '../../net/pinned-agent';
import { parseTarget } from '../../net/target';
import { fetchUrlTool } from './fetch-url';
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

const HOSTILE_ARTICLE = `<!doctype html><html><head><title>Widget Guide</title>
<script>window.pwned = true; fetch('http://169.254.169.254/latest/meta-data')</script><style>body { color: red }</style></head>
<body><nav><a href="/">Home</a> <a href="/pricing">Pricing</a> Site navigation menu</nav>
<main><article><h1>Widget Guide</h1>
<p>Widgets are configured with a file called <code>widget.toml</code>. This guide explains every option that a widget accepts and how the options interact with each other in practice.</p>
<h2>Install</h2><pre><code class="language-sh">npm install widget
widget init</code></pre>
<p>See <a href="/docs/api">the API reference</a> and <a href="javascript:alert(1)">this trap</a> for the remaining details about widgets and their many options.</p>
<table><thead><tr><th>Option</th><th>Default</th></tr></thead><tbody><tr><td>size</td><td>10</td></tr><tr><td>color</td><td>blue</td></tr></tbody></table>
<ul><li>First point</li><li>Second point</li></ul>
<img src="x" onerror="window.pwned = true"><iframe src="http://127.0.0.1:1/"></iframe>
<p>Widgets can also be nested, which is covered at length in the advanced section of this guide, below the table of options.</p>
</article></main><footer>Copyright footer text</footer></body></html>`;

const names =
  (table: Record<string, string[]>, calls: string[] = []): Resolver =>
  async (hostname) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

let server: LocalServer;
let other: LocalServer;

beforeAll(async () => {
  other = await startServer(send(200, 'text/plain', 'the other host'));
  const big = Buffer.alloc(11 * 1024 * 1024, 'a');
  server = await startServer(
    routes({
      '/article': send(200, 'text/html; charset=utf-8', HOSTILE_ARTICLE),
      '/plain': send(200, 'text/plain', 'just text\nline two'),
      '/readme.md': send(200, 'text/markdown', '# Readme\n\n<b>raw html stays text</b>'),
      '/data': send(200, 'application/json', '{"a":1,"b":[true,null]}'),
      '/image': send(200, 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0])),
      '/doc.pdf': send(200, 'application/pdf', pdfWithText('Hello from a PDF')),
      '/no-type': (_req, res) => {
        res.removeHeader('content-type');
        res.end('untyped but plain text');
      },
      '/big-declared': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(big.length) });
        res.end(big);
      },
      '/big-chunked': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write(big.subarray(0, 6 * 1024 * 1024));
        res.end(big.subarray(6 * 1024 * 1024));
      },
      '/slow': (_req, res) => {
        // Slowloris: a byte every 50 ms, forever; only a total deadline ends it.
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => res.write('x'), 50);
        res.on('close', () => clearInterval(timer));
      },
      '/huge-headers': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain', 'x-filler': 'a'.repeat(100 * 1024) });
        res.end('ok');
      },
      '/missing': send(404, 'text/html', '<html><head><title>404 Not Found</title></head><body>No such page</body></html>'),
    }),
  );
});
afterAll(async () => {
  await server.close();
  await other.close();
});

interface Options {
  allow?: string[];
  resolver?: Resolver;
  timeoutMs?: number;
}

async function fetchUrl(url: string, options: Options = {}): Promise<ToolResult> {
  const tool = fetchUrlTool({
    resolver: options.resolver ?? names({}),
    allowedPrivateHosts: async () => options.allow ?? [server.authority],
    limits: { timeoutMs: options.timeoutMs ?? 10_000 },
  });
  let resolved;
  try {
    resolved = await tool.resolveExecution(inputSchemaOf(tool.input).parse({ url }), env);
  } catch (error) {
    return { output: (error as Error).message, isError: true };
  }
  if (!isExecution(resolved)) return resolved;
  return resolved.execute({ signal: new AbortController().signal, onUpdate: () => {}, callId: 'c', turnId: 't', step: 1 });
}

const text = (result: ToolResult) => (typeof result.output === 'string' ? result.output : '');

describe('FetchURL content', () => {
  it('turns HTML into Markdown: title first, main text, a table and a code block kept; scripts, styles and navigation gone', async () => {
    const result = await fetchUrl(`${server.url}/article`);
    expect(result.isError).toBeFalsy();
    const out = text(result);
    const body = out.slice(out.indexOf('\n\n') + 2);
    expect(body.startsWith('# Widget Guide\n')).toBe(true);
    expect(out).toContain('Content: main text extracted from the HTML');
    expect(body).toContain('Widgets are configured with a file called `widget.toml`');
    expect(body).toContain('```sh\nnpm install widget\nwidget init\n```');
    expect(body).toMatch(/\| Option \| Default \|\n\| --- \| --- \|\n\| size \| 10 +\|\n\| color \| blue \|/);
    expect(body).toContain('- First point\n- Second point');
    expect(body).not.toContain('![');
    expect(body).toContain(`[the API reference](${server.url}/docs/api)`);
    for (const gone of ['Site navigation', 'Copyright footer', 'window.pwned', 'color: red', 'onerror', 'javascript:', '<script', '<iframe'])
      expect(body).not.toContain(gone);
    expect(body).toContain('this trap');
    expect(result.display).toMatchObject({ kind: 'url_content', status: 200, title: 'Widget Guide', extracted: true, contentType: 'text/html' });
    expect(result.note).toContain(`[Widget Guide](${server.url}/article)`);
  });

  it('passes plain text and Markdown through, says it is the full body', async () => {
    const plain = await fetchUrl(`${server.url}/plain`);
    expect(text(plain)).toContain('Content: full body verbatim (text/plain)');
    expect(text(plain)).toMatch(/\n\njust text\nline two$/);
    const markdown = await fetchUrl(`${server.url}/readme.md`);
    expect(text(markdown)).toContain('full body verbatim (Markdown)');
    expect(text(markdown)).toContain('# Readme\n\n<b>raw html stays text</b>');
    expect(markdown.display).toMatchObject({ extracted: false, title: 'Readme' });
    expect(text(await fetchUrl(`${server.url}/no-type`))).toContain('untyped but plain text');
  });

  it('pretty-prints JSON', async () => {
    expect(text(await fetchUrl(`${server.url}/data`))).toContain('{\n  "a": 1,\n  "b": [\n    true,\n    null\n  ]\n}');
  });

  it('reads the text of a PDF', async () => {
    const result = await fetchUrl(`${server.url}/doc.pdf`);
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain('text extracted from a PDF (1 page)');
    expect(text(result)).toContain('Hello from a PDF');
  });

  it('refuses binary content, naming its type', async () => {
    const result = await fetchUrl(`${server.url}/image`);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('is image/png');
  });

  it('reports HTTP errors with the status and a short reason', async () => {
    const result = await fetchUrl(`${server.url}/missing`);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/HTTP 404 Not Found — 404 Not Found\. Check the URL/);
    expect(result.display).toMatchObject({ kind: 'url_content', status: 404 });
  });
});

describe('FetchURL limits', () => {
  it('refuses a page over 10 MiB by its Content-Length, and by the bytes read when there is none', async () => {
    expect(text(await fetchUrl(`${server.url}/big-declared`))).toContain('11 MiB (Content-Length): FetchURL reads at most 10 MiB');
    expect(text(await fetchUrl(`${server.url}/big-chunked`))).toContain('larger than 10 MiB once decoded');
  });

  it('counts decoded bytes: a small gzip that inflates past 10 MiB is refused (gzip bomb)', async () => {
    const bomb = gzipSync(Buffer.alloc(16 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const bombServer = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
      res.end(bomb);
    });
    try {
      const result = await fetchUrl(`${bombServer.url}/`, { allow: [bombServer.authority] });
      expect(result.isError).toBe(true);
      expect(text(result)).toContain('larger than 10 MiB once decoded');
    } finally {
      await bombServer.close();
    }
  });

  it('gives up after the total timeout even while bytes keep trickling in (slowloris)', async () => {
    const result = await fetchUrl(`${server.url}/slow`, { timeoutMs: 600 });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('Timed out after 0.6 s');
  });

  it('refuses responses with huge headers', async () => {
    const result = await fetchUrl(`${server.url}/huge-headers`);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('response headers larger than 64 KiB');
  });
});

describe('FetchURL redirects', () => {
  let hops: LocalServer;
  beforeAll(async () => {
    hops = await startServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const n = Number(url.searchParams.get('n') ?? '0');
      const to = url.searchParams.get('to');
      if (to) {
        res.writeHead(302, { location: to });
        res.end();
      } else if (n > 0) {
        res.writeHead(301, { location: `/hop?n=${n - 1}` });
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('arrived');
      }
    });
  });
  afterAll(() => hops.close());

  it('follows a chain within the limit (10), each hop checked', async () => {
    const result = await fetchUrl(`${hops.url}/hop?n=10`, { allow: [hops.authority] });
    expect(text(result)).toContain('arrived');
    expect(text(result)).toContain('(10 redirects)');
  });

  it('refuses an 11th redirect', async () => {
    const result = await fetchUrl(`${hops.url}/hop?n=11`, { allow: [hops.authority] });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('Too many redirects');
    expect(text(result)).not.toContain('arrived');
  });

  it.each([
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['an IPv4-mapped loopback address', 'http://[::ffff:127.0.0.1]/', 'loopback'],
    ['a hex loopback address', 'http://0x7f000001/', 'loopback'],
    ['a private host name', 'http://intranet.corp/', '10.1.2.3'],
  ])('refuses a redirect from the allowed host to %s', async (_what, location, why) => {
    const before = hops.requests.length;
    const result = await fetchUrl(`${hops.url}/hop?to=${encodeURIComponent(location)}`, {
      allow: [hops.authority],
      resolver: names({ 'intranet.corp': ['10.1.2.3'] }),
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('Refused to fetch');
    expect(text(result)).toContain(why);
    expect(hops.requests.length).toBe(before + 1);
  });

  it('reports a redirect to another (public) host without following it, so that host is asked for in its own call', async () => {
    const result = await fetchUrl(`${hops.url}/hop?to=${encodeURIComponent('https://elsewhere.example/page')}`, {
      allow: [hops.authority],
      resolver: names({ 'elsewhere.example': ['93.184.215.14'] }),
    });
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain('redirects (HTTP 302) to another host: https://elsewhere.example/page. It was not followed.');
  });
});

describe('FetchURL private addresses', () => {
  it('refuses loopback by default, saying how to allow the host', async () => {
    const result = await fetchUrl(`${server.url}/plain`, { allow: [] });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(`Refused to fetch ${server.url}: 127.0.0.1 is a loopback address (this machine)`);
    expect(text(result)).toContain(`add "${server.authority}" to Settings → Web → Allowed private hosts`);
  });

  it.each([
    ['[::ffff:127.0.0.1]', (port: number) => `http://[::ffff:127.0.0.1]:${port}/plain`],
    ['0x7f000001', (port: number) => `http://0x7f000001:${port}/plain`],
    ['127.1', (port: number) => `http://127.1:${port}/plain`],
    ['decimal 2130706433', (port: number) => `http://2130706433:${port}/plain`],
    ['octal 0177.0.0.1', (port: number) => `http://0177.0.0.1:${port}/plain`],
    ['[::1]', (port: number) => `http://[::1]:${port}/plain`],
    ['0.0.0.0', (port: number) => `http://0.0.0.0:${port}/plain`],
    ['localhost. (trailing dot)', (port: number) => `http://localhost.:${port}/plain`],
    ['a subdomain of localhost', (port: number) => `http://api.localhost:${port}/plain`],
  ])('refuses %s without connecting', async (_form, url) => {
    const before = server.requests.length;
    const result = await fetchUrl(url(server.port), { allow: [] });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/Refused to fetch .*(loopback|unspecified|this machine)/);
    expect(server.requests.length).toBe(before);
  });

  it('refuses an IPv6 zone id (not a valid URL host)', async () => {
    const result = await fetchUrl('http://[fe80::1%25eth0]/', { allow: [] });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('is not a valid absolute URL');
  });

  it('refuses a host name that resolves to a private address, and any answer that includes one', async () => {
    const calls: string[] = [];
    const resolver = names({ 'evil.example': ['10.0.0.5'], 'mixed.example': ['93.184.215.14', '192.168.1.1'] }, calls);
    const evil = await fetchUrl('http://evil.example/', { allow: [], resolver });
    expect(text(evil)).toContain('evil.example resolves to 10.0.0.5, a private network address');
    const mixed = await fetchUrl('http://mixed.example/', { allow: [], resolver });
    expect(text(mixed)).toContain('mixed.example resolves to 192.168.1.1');
    expect(calls).toEqual(['evil.example', 'mixed.example']);
  });

  it('connects to the address that was checked: one lookup per connection, no second answer used (DNS rebinding)', async () => {
    // The resolver answers the test server first and a black-hole address afterwards; a fetcher that looked
    // the name up again after checking it would connect to the second answer and fail.
    const calls: string[] = [];
    let n = 0;
    const rebinding: Resolver = async (hostname) => {
      calls.push(hostname);
      return [{ address: n++ === 0 ? '127.0.0.1' : '10.255.255.1', family: 4 }];
    };
    const result = await fetchUrl(`http://pinned.test:${server.port}/plain`, { allow: [`pinned.test:${server.port}`], resolver: rebinding });
    expect(text(result)).toContain('just text');
    expect(calls).toEqual(['pinned.test']);
  });

  it('checks every lookup the socket makes: a name answering public, then private, is refused on the second (DNS rebinding)', async () => {
    let n = 0;
    const rebinding: Resolver = async () => [{ address: n++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
    const lookup = checkedLookup(parseTarget('http://rebind.example/'), { resolver: rebinding, allowPrivate: false });
    // What net.connect receives (nothing connects here): the checked public address, then a refusal.
    const ask = (all: boolean) =>
      new Promise<{ error: Error | null; address: unknown }>((resolve) => lookup('rebind.example', { all }, (error, address) => resolve({ error, address })));
    expect(await ask(true)).toEqual({ error: null, address: [{ address: '93.184.215.14', family: 4 }] });
    const second = await ask(false);
    expect(second.error?.message).toContain('rebind.example resolves to 127.0.0.1, a loopback address');
  });

  it('allows only the host and port the user named', async () => {
    expect(text(await fetchUrl(`${other.url}/`, { allow: [server.authority] }))).toContain('Refused');
    expect(text(await fetchUrl(`${other.url}/`, { allow: ['127.0.0.1'] }))).toContain('the other host');
    expect(
      text(
        await fetchUrl(`http://docs.intranet.test:${other.port}/`, { allow: ['*.intranet.test'], resolver: names({ 'docs.intranet.test': ['127.0.0.1'] }) }),
      ),
    ).toContain('the other host');
  });

  it('refuses URL credentials and other schemes', async () => {
    expect(text(await fetchUrl(`http://user:secret@example.com/`))).toContain('URLs with credentials (user:password@host) are refused');
    expect(text(await fetchUrl('file:///etc/passwd'))).toContain('Only http:// and https:// URLs');
    expect(text(await fetchUrl('gopher://example.com/'))).toContain('Only http:// and https:// URLs');
  });

  it('says which network error happened', async () => {
    expect(text(await fetchUrl('http://no-such-host.example/', { allow: [] }))).toContain('DNS lookup failed for no-such-host.example (ENOTFOUND)');
    const closed = await startServer(() => {});
    const port = closed.port;
    await closed.close();
    expect(text(await fetchUrl(`http://127.0.0.1:${port}/`, { allow: [`127.0.0.1:${port}`] }))).toContain('Connection refused by 127.0.0.1:');
    const tls = await startSelfSignedServer();
    try {
      expect(text(await fetchUrl(`${tls.url}/`, { allow: [tls.authority] }))).toMatch(
        /^TLS error talking to 127\.0\.0\.1:\d+: .*not trusted; Deft does not skip the check\.$/,
      );
    } finally {
      await tls.close();
    }
  });
});
