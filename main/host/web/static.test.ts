import type * as fs from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '#test-support/harness';

// A file that passes the stat and then cannot be read (deleted by a rebuild in between, say).
vi.mock('node:fs', async (original) => ({
  ...(await original<typeof fs>()),
  createReadStream: () =>
    new Readable({
      read() {
        this.destroy(Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' }));
      },
    }),
}));

const { serveStatic } = await import('./static');

let close: () => void = () => {};
afterEach(() => close());

describe('serveStatic', () => {
  it('cuts the response, and does not crash the host, when a file cannot be read after its stat', async () => {
    const root = await tempDir('deft-static-');
    await mkdir(join(root, 'assets'));
    await writeFile(join(root, 'assets', 'app.js'), 'console.log(1)');
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    const server = createServer((req, res) => void serveStatic(root, req.url ?? '/', res));
    close = () => {
      process.off('uncaughtException', onUncaught);
      server.close();
    };
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const outcome = await new Promise<string>((resolve) => {
      setTimeout(() => resolve('hung'), 3_000);
      get({ host: '127.0.0.1', port, path: '/assets/app.js' }, (res) => {
        res.on('error', () => resolve('cut'));
        res.on('aborted', () => resolve('cut'));
        res.resume();
        res.on('end', () => resolve('complete'));
      }).on('error', () => resolve('cut'));
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(uncaught).toEqual([]);
    expect(outcome).toBe('cut');
  });
});
