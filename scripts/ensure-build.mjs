// Build out/ when it is missing or older than the sources. Used by npm start, npm run web and bin/deft.mjs.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
const SOURCES = ['protocol', 'main', 'preload', 'renderer', 'electron.vite.config.ts', 'package.json'];
/**
 * What out/main (the CLI, the web host, the SDK) is built from: the CLI checks only these before a run, so that
 * `deft run` does not stat the renderer's files (a third of the check's cost, about 10 ms of CPU a run). A stale
 * renderer is rebuilt by the hosts that show it (npm start, npm run web), which check everything.
 */
export const MAIN_SOURCES = ['protocol', 'main', 'electron.vite.config.ts', 'package.json'];
const OUTPUTS = ['out/main/index.js', 'out/main/web.js', 'out/main/cli.js', 'out/preload/index.cjs', 'out/renderer/index.html'];

/** The newest modification time under `path`, test files left out (they are not built). */
function newestMtime(path) {
  const info = statSync(path);
  return info.isDirectory() ? newestInFolder(path, info.mtimeMs) : info.mtimeMs;
}

// Entries' types come with the listing, so only files that are built are stat'ed (about a third fewer calls).
// Every `deft run` walks this (about 550 files): plain string joins and comparisons, about half the CPU of
// path.join, a regular expression and Math.max per entry (issue 36).
function newestInFolder(folder, newest) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const name = entry.name;
    if (name === 'node_modules') continue;
    const path = folder + sep + name;
    if (entry.isDirectory()) {
      const mtime = statSync(path).mtimeMs;
      newest = newestInFolder(path, mtime > newest ? mtime : newest);
    } else if (!name.endsWith('.test.ts') && !name.endsWith('.test.tsx')) {
      const mtime = statSync(path).mtimeMs;
      if (mtime > newest) newest = mtime;
    }
  }
  return newest;
}

/** Whether a source in `sources` (default: all of them) is newer than the oldest output. */
export function buildIsStale(sources = SOURCES) {
  const outputs = OUTPUTS.map((p) => join(root, p));
  if (!outputs.every((p) => existsSync(p))) return true;
  const built = Math.min(...outputs.map((p) => statSync(p).mtimeMs));
  const source = Math.max(
    ...sources
      .map((p) => join(root, p))
      .filter(existsSync)
      .map(newestMtime),
  );
  return source > built;
}

/**
 * Build if needed; `say` reports what happens (to stderr, so stdout stays clean for the CLI). `sources`: which
 * sources to compare with the outputs (MAIN_SOURCES for a host that runs only out/main).
 */
export function ensureBuild(say = (m) => process.stderr.write(m + '\n'), sources = SOURCES) {
  if (!buildIsStale(sources)) return;
  say('deft: building the app (first run or sources changed)…');
  // child_process only when a build runs: `deft run` with a fresh build starts no process (issue 36).
  const result = process
    .getBuiltinModule('node:child_process')
    .spawnSync(process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  if (result.status !== 0) {
    say('deft: the build failed (see above).');
    process.exit(1);
  }
}
