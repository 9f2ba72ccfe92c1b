// `npm test`: typecheck, lint, unit/integration tests, build, then the e2e suite in Chromium.
// Finds Chromium (or installs it, saying how) so it works on a fresh machine.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { findChromium } from './chromium.mjs';
import { root } from './ensure-build.mjs';

const bin = (name) => join(root, 'node_modules', '.bin', name);

function step(title, command, args, env = {}) {
  console.log(`\n▶ ${title}`);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.status !== 0) {
    console.error(`\n✗ ${title} failed (exit ${result.status ?? result.signal}).`);
    process.exit(result.status || 1);
  }
  console.log(`✓ ${title} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

/**
 * Static checks at the same time (each is mostly one busy thread, so together they take about as long as
 * the slowest); each one's output is printed whole when it ends, so the log stays readable.
 */
async function together(steps) {
  console.log(`\n▶ ${steps.map(([title]) => title).join(', ')} (together)`);
  const results = await Promise.all(
    steps.map(([title, command, args]) => {
      const started = Date.now();
      return new Promise((resolve) => {
        const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (d) => (output += d));
        child.stderr.on('data', (d) => (output += d));
        child.on('error', (error) => resolve({ title, output: `${output}${error.message}\n`, code: 1, started }));
        child.on('close', (code, signal) => resolve({ title, output, code: code ?? signal, started }));
      }).then((result) => {
        if (result.output.trim()) process.stdout.write(`\n── ${title} ──\n${result.output}`);
        console.log(result.code === 0 ? `✓ ${title} (${((Date.now() - started) / 1000).toFixed(1)} s)` : `✗ ${title} failed (exit ${result.code}).`);
        return result;
      });
    }),
  );
  const failed = results.filter((r) => r.code !== 0);
  if (failed.length) {
    console.error(`\n✗ ${failed.map((r) => r.title).join(', ')} failed.`);
    process.exit(1);
  }
}

function ensureChromium() {
  let found = findChromium();
  if (found) return found;
  console.log("\n▶ Chromium not found; trying Playwright's installer (npx playwright install chromium)…");
  spawnSync(bin('playwright'), ['install', 'chromium'], { cwd: root, stdio: 'inherit' });
  found = findChromium();
  if (found) return found;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && spawnSync('sh', ['-c', 'command -v apt-get']).status === 0) {
    console.log("▶ Playwright could not download a browser; installing Debian's chromium package (apt-get install -y chromium)…");
    spawnSync('apt-get', ['update'], { stdio: 'inherit' });
    spawnSync('apt-get', ['install', '-y', 'chromium'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    found = findChromium();
  }
  if (!found) {
    console.error('✗ No Chromium for the e2e suite. Install one (e.g. `apt-get install chromium`) or set DEFT_CHROMIUM to its path.');
    process.exit(1);
  }
  return found;
}

/** bubblewrap and socat for the sandbox integration tests (Linux): installed from Debian when missing, as Chromium is. */
function ensureSandboxTools() {
  if (process.platform !== 'linux') return;
  const has = (name) => spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
  const missing = ['bwrap', 'socat'].filter((name) => !has(name));
  if (!missing.length) return;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  // Root installs directly; otherwise sudo, but only where it needs no password (-n): npm test never waits for one.
  const canSudo = !isRoot && has('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
  if ((isRoot || canSudo) && has('apt-get')) {
    console.log(
      `\n▶ ${missing.join(' and ')} not found; installing Debian's bubblewrap and socat (${isRoot ? '' : 'sudo '}apt-get install -y bubblewrap socat)…`,
    );
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    const run = (args) =>
      isRoot
        ? spawnSync(args[0], args.slice(1), { stdio: 'inherit', env })
        : spawnSync('sudo', ['-n', 'DEBIAN_FRONTEND=noninteractive', ...args], { stdio: 'inherit', env });
    run(['apt-get', 'update']);
    run(['apt-get', 'install', '-y', 'bubblewrap', 'socat']);
  }
  const still = ['bwrap', 'socat'].filter((name) => !has(name));
  if (still.length) {
    const message = `${still.join(' and ')} missing: the sandbox integration tests need them (apt-get install bubblewrap socat).`;
    if (process.env.CI) {
      console.error(`✗ ${message}`);
      process.exit(1);
    }
    console.warn(`! ${message} Those tests are skipped on this machine.`);
  }
}

ensureSandboxTools();
await together([
  ['Typecheck', bin('tsc'), ['-b', 'tsconfig.json']],
  ['Lint', bin('eslint'), ['--max-warnings', '0', '.']],
  [
    'Import cycles (dependency-cruiser)',
    bin('depcruise'),
    ['--config', '.dependency-cruiser.cjs', 'main', 'protocol', 'preload', 'renderer/src', 'bench', 'e2e', 'test-support'],
  ],
]);
step('Unit and integration tests', bin('vitest'), ['run']);
step('Build', process.execPath, [join(root, 'node_modules/electron-vite/bin/electron-vite.js'), 'build']);
const chromium = ensureChromium();
console.log(`Chromium: ${chromium}`);
step('End-to-end tests', bin('playwright'), ['test'], { DEFT_CHROMIUM: chromium });
console.log('\nAll tests passed.');
