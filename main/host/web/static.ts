import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import { extname, join, normalize, sep } from 'node:path';
import { SECURITY_HEADERS } from './security';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

/** Serve a file from the built renderer; anything outside it, or missing, is a 404. Unknown paths get index.html. */
export async function serveStatic(root: string, urlPath: string, res: ServerResponse): Promise<void> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath.split('?')[0] ?? '/');
  } catch {
    return send(res, 400, 'Bad path');
  }
  const relative = normalize(decoded).replace(/^([/\\])+/, '');
  let file = join(root, relative || 'index.html');
  if (file !== root && !file.startsWith(root + sep)) return send(res, 404, 'Not found');
  let info = await stat(file).catch(() => null);
  if (!info?.isFile()) {
    if (extname(relative)) return send(res, 404, 'Not found');
    file = join(root, 'index.html');
    info = await stat(file).catch(() => null);
    if (!info?.isFile()) return send(res, 500, 'The renderer is not built. Run `npm run build`.');
  }
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
    'content-length': String(info.size),
    'cache-control': file.endsWith('index.html') ? 'no-store' : 'public, max-age=31536000, immutable',
  });
  // The file can vanish or become unreadable after the stat (a rebuild); the response is then cut, never the process.
  pipeline(createReadStream(file), res, () => {});
}

export function send(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}
