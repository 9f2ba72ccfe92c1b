import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { root } from '../scripts/ensure-build.mjs';
import { expect, test } from './fixtures/deft';

// Checks on the built Electron bundles that need no Electron binary to run.
test('the sandboxed preload requires nothing but electron', async () => {
  const preload = await readFile(join(root, 'out/preload/index.cjs'), 'utf8');
  const required = [...preload.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1]);
  expect(required.length).toBeGreaterThan(0);
  expect(new Set(required)).toEqual(new Set(['electron']));
});

test('the renderer ships a strict Content-Security-Policy', async () => {
  const html = await readFile(join(root, 'out/renderer/index.html'), 'utf8');
  const csp = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(html)?.[1] ?? '';
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("object-src 'none'");
  expect(csp).not.toContain('unsafe-eval');
  expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
});
