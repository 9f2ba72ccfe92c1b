// Build out/ when it is missing or older than the sources. Used by npm start, npm run web and bin/deft.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = ['protocol', 'main', 'preload', 'renderer', 'electron.vite.config.ts', 'package.json'];
const OUTPUTS = ['out/main/index.js', 'out/main/web.js', 'out/main/cli.js', 'out/preload/index.cjs', 'out/renderer/index.html'];

function newestMtime(path) {
  const info = statSync(path);
  if (!info.isDirectory()) return /\.test\.tsx?$/.test(path) ? 0 : info.mtimeMs;
  let newest = 0;
  for (const name of readdirSync(path)) {
    if (name === 'node_modules') continue;
    newest = Math.max(newest, newestMtime(join(path, name)));
  }
  return newest;
}

export function buildIsStale() {
  const outputs = OUTPUTS.map((p) => join(root, p));
  if (!outputs.every((p) => existsSync(p))) return true;
  const built = Math.min(...outputs.map((p) => statSync(p).mtimeMs));
  const source = Math.max(
    ...SOURCES.map((p) => join(root, p))
      .filter(existsSync)
      .map(newestMtime),
  );
  return source > built;
}

/** Build if needed; `say` reports what happens (to stderr, so stdout stays clean for the CLI). */
export function ensureBuild(say = (m) => process.stderr.write(m + '\n')) {
  if (!buildIsStale()) return;
  say('deft: building the app (first run or sources changed)…');
  const result = spawnSync(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (result.status !== 0) {
    say('deft: the build failed (see above).');
    process.exit(1);
  }
}
