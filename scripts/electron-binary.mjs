// Where the Electron binary is, without triggering electron's own lazy download (which `require('electron')` does).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './ensure-build.mjs';

export function electronBinary() {
  const dir = join(root, 'node_modules/electron');
  const pathFile = join(dir, 'path.txt');
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    const candidate = join(process.env.ELECTRON_OVERRIDE_DIST_PATH, existsSync(pathFile) ? readFileSync(pathFile, 'utf8') : 'electron');
    return existsSync(candidate) ? candidate : null;
  }
  if (!existsSync(pathFile)) return null;
  const binary = join(dir, 'dist', readFileSync(pathFile, 'utf8'));
  return existsSync(binary) ? binary : null;
}
