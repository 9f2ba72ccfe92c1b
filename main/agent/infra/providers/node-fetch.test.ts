import { type Server, createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { errorFromNetwork } from './errors';
import { readSseData } from './sse';
import { nodeFetch } from './node-fetch';

// The providers' requests on node:http (issue 36: no undici for a text turn): what the providers read of a response.

let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe('nodeFetch', () => {
  it('posts a JSON body and reads the status, the headers and the text', async () => {
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        res.writeHead(429, { 'retry-after': '3', 'content-type': 'application/json' });
        res.end(JSON.stringify({ got: JSON.parse(body), auth: req.headers.authorization, length: req.headers['content-length'] }));
      });
    });
    const response = await nodeFetch(`${url}/v1/chat`, { method: 'POST', headers: { authorization: 'Bearer k' }, body: '{"a":"é"}' });
    expect(response.ok).toBe(false);
    expect(response.status).toBe(429);
    expect(response.headers.get('Retry-After')).toBe('3');
    expect(response.headers.get('x-none')).toBeNull();
    expect(JSON.parse(await response.text())).toEqual({ got: { a: 'é' }, auth: 'Bearer k', length: '10' });
  });

  it('streams the body as it comes, for the SSE reader', async () => {
    let finish: () => void = () => {};
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: one\n\n');
      finish = () => res.end('data: two\n\n');
    });
    const response = await nodeFetch(url, { method: 'POST', body: '{}' });
    const events = readSseData(response.body!);
    expect((await events.next()).value).toBe('one');
    finish();
    expect((await events.next()).value).toBe('two');
    expect((await events.next()).done).toBe(true);
  });

  it('stops on abort, mid-stream too, with the abort reason', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      res.write('data: one\n\n');
    });
    const controller = new AbortController();
    const response = await nodeFetch(url, { method: 'POST', body: '{}', signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort(new Error('stopped'));
    await expect(reader.read()).rejects.toThrow();
    await expect(nodeFetch(url, { method: 'GET', signal: controller.signal })).rejects.toThrow('stopped');
  });

  it('follows redirects, dropping the key when the redirect leaves the origin', async () => {
    const seen: Array<string | undefined> = [];
    const other = await serve((req, res) => {
      seen.push(req.headers.authorization);
      res.end(`${req.method} at the other`);
    });
    const url = await serve((req, res) => {
      seen.push(req.headers.authorization);
      if (req.url === '/moved') res.writeHead(308, { location: '/here' }).end();
      else if (req.url === '/away') res.writeHead(307, { location: `${other}/there` }).end();
      else if (req.url === '/see') res.writeHead(303, { location: '/here' }).end();
      else res.end(`${req.method} here`);
    });
    const headers = { authorization: 'Bearer k' };
    expect(await (await nodeFetch(`${url}/moved`, { method: 'POST', headers, body: '{}' })).text()).toBe('POST here');
    expect(await (await nodeFetch(`${url}/see`, { method: 'POST', headers, body: '{}' })).text()).toBe('GET here');
    expect(await (await nodeFetch(`${url}/away`, { method: 'POST', headers, body: '{}' })).text()).toBe('POST at the other');
    expect(seen).toEqual(['Bearer k', 'Bearer k', 'Bearer k', 'Bearer k', 'Bearer k', undefined]);
  });

  it('fails like fetch on an unreachable server, so the provider says what to fix', async () => {
    const url = await serve((_req, res) => res.end());
    await new Promise((r) => servers.pop()!.close(r));
    const error = await nodeFetch(url, { method: 'GET' }).catch((e: unknown) => e);
    expect(errorFromNetwork(error, url).message).toContain('the connection was refused');
    await expect(nodeFetch('ftp://example.com/x', { method: 'GET' })).rejects.toThrow('Only http and https');
  });
});
