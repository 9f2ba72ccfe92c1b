import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join, resolve } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MockModelServer } from '#test-support/mock-model-server';
import { remoteCliRig } from '#test-support/remote-cli';
import { tempDir } from '#test-support/harness';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';

const run_ = promisify(execFile);

// Issue 33 on issue 29's remote folders: a remote workspace's language server is found and run on the remote machine.
// The sshd runs in a mount namespace of its own where the remote folder (`there`) shows at `path`; this machine's
// folder at `path` has no node_modules at all, so a server found and started proves it was found there. The
// workspace's `node_modules/.bin/typescript-language-server` is a script that writes the mount namespace it ran in
// and then runs a copy of this repository's typescript-language-server placed in the workspace.

const REPO_MODULES = resolve(import.meta.dirname, '../../../node_modules');
const COLD = 120_000;
const mark = randomBytes(8).toString('hex');
/** Outside the workspace: the server, in the remote sandbox, cannot write it. */
const escape = `/var/tmp/deft-lsp-escape-${mark}`;

const rig = remoteCliRig('deft-remote-lsp');
let hereNs: string;

let packages: string;

beforeAll(async () => {
  hereNs = await readlink('/proc/self/ns/mnt');
  packages = await tempDir('deft-remote-lsp-pkgs-');
  for (const name of ['typescript', 'typescript-language-server']) await cp(join(REPO_MODULES, name), join(packages, name), { recursive: true });
});

const MAIN = "import { add } from './math';\n\nconst total: number = add(1, 2);\nconsole.log(total);\n";

beforeEach(async () => {
  await writeFile(join(rig.home, 'settings.json'), JSON.stringify({ lsp: { diagnosticsWaitMs: COLD } }));
  for (const dir of [rig.there, rig.path])
    for (const name of ['node_modules', 'lsp-ns.txt', 'lsp-env.txt']) await rm(join(dir, name), { recursive: true, force: true });
  await writeFile(
    join(rig.there, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', types: [] } }),
  );
  await writeFile(join(rig.there, 'math.ts'), 'export function add(a: number, b: number): number {\n  return a + b;\n}\n');
  await writeFile(join(rig.there, 'main.ts'), MAIN);
  // This machine's folder of the same path: another main.ts, and no language server.
  await writeFile(join(rig.path, 'main.ts'), '// not the remote file\n');
});

/**
 * The remote workspace's own typescript-language-server (and its typescript), as `npm install` would leave them:
 * inside the workspace, since the remote sandbox shows nothing else of /tmp (where a CI clone of this repository may
 * be). Hard links to a copy made once (`packages`, on the workspace's file system).
 */
async function installServerThere() {
  await mkdir(join(rig.there, 'node_modules', '.bin'), { recursive: true });
  for (const name of ['typescript', 'typescript-language-server']) await run_('cp', ['-al', join(packages, name), join(rig.there, 'node_modules', name)]);
  // The path as the remote machine sees the workspace.
  const cli = join(rig.path, 'node_modules', 'typescript-language-server', 'lib', 'cli.mjs');
  const script = `#!/bin/sh\nreadlink /proc/self/ns/mnt > lsp-ns.txt\nenv > lsp-env.txt\ntouch '${escape}' 2>/dev/null\nexec env LSP_TEST_MARK=${mark} '${process.execPath}' '${cli}' "$@"\n`;
  await writeFile(join(rig.there, 'node_modules', '.bin', 'typescript-language-server'), script, { mode: 0o755 });
}

/** Whether a process carrying `mark` in its environment still runs, after a moment to end (the sandbox's own pid
 * namespace makes a pid written inside it meaningless here, so the process is found by its mark). */
async function markedAliveAfterAWhile(): Promise<boolean> {
  const marked = async () => {
    for (const pid of await readdir('/proc').catch(() => [] as string[])) {
      if (!/^\d+$/.test(pid)) continue;
      const environ = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
      if (environ.split('\0').includes(`LSP_TEST_MARK=${mark}`)) return true;
    }
    return false;
  };
  for (let i = 0; i < 50 && (await marked()); i++) await new Promise((r) => setTimeout(r, 100));
  return marked();
}

async function run(...steps: Parameters<MockModelServer['enqueue']>) {
  rig.server.enqueue(...steps);
  const { code, stderr, toolResults: tools } = await rig.run('go');
  return { code, stderr, tools };
}

const edit = () => [
  toolStep(callChunk('Read', { path: `${rig.path}/main.ts` })),
  toolStep(callChunk('Edit', { path: `${rig.path}/main.ts`, old_string: 'const total: number', new_string: 'const total: string' })),
];

describe('deft run --remote: language servers', () => {
  it('a trusted remote folder’s own server runs there: an Edit gets its type error with the line, and LSP definition works', { timeout: 180_000 }, async () => {
    await installServerThere();
    await rig.trust();
    const result = await run(...edit(), toolStep(callChunk('LSP', { operation: 'definition', path: 'main.ts', line: 3, symbol: 'add' })), textReply('Done.'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('language servers');
    const [, edited, definition] = result.tools;
    expect(edited).toMatch(/The typescript language server reports 1 new error in main\.ts after this change:\n {2}main\.ts:3:7 error TS2322/);
    expect(definition).toMatch(/^math\.ts:1:17 {2}export function add/);
    // It ran on the remote machine, in the remote folder, with the scrubbed environment.
    expect((await readFile(join(rig.there, 'lsp-ns.txt'), 'utf8')).trim()).not.toBe(hereNs);
    expect(existsSync(join(rig.path, 'lsp-ns.txt'))).toBe(false);
    const env = await readFile(join(rig.there, 'lsp-env.txt'), 'utf8');
    expect(env).toMatch(/^NO_COLOR=1$/m);
    expect(env).not.toMatch(/^(DEFT_|SSH_AUTH_SOCK)/m);
    // The run ended its server there (the sshd shares this machine's process ids).
    expect(await markedAliveAfterAWhile()).toBe(false);
    // It ran in the sandbox there: nothing written outside the workspace.
    expect(existsSync(escape)).toBe(false);
    // The edit itself landed there.
    expect(await readFile(join(rig.there, 'main.ts'), 'utf8')).toContain('const total: string');
  });

  it('an untrusted remote folder starts no server: the Edit result has no diagnostics', { timeout: 60_000 }, async () => {
    await installServerThere();
    // Trusting this machine's folder of the same path trusts nothing there.
    await writeFile(join(rig.home, 'trust.json'), JSON.stringify({ folders: { [rig.path]: { trusted: true } } }));
    const result = await run(...edit(), textReply('Done.'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.tools[1]).toMatch(/^Replaced 1 occurrence/);
    expect(result.tools[1]).not.toContain('language server');
    expect(existsSync(join(rig.there, 'lsp-ns.txt'))).toBe(false);
    expect(rig.server.requests.at(-1)!.body.tools!.some((t) => t.function.name === 'LSP')).toBe(false);
  });

  it('with no server on the remote, the Edit says once what to install there', { timeout: 60_000 }, async () => {
    await rig.trust();
    const result = await run(...edit(), textReply('Done.'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.tools[1]).toContain(`No TypeScript/JavaScript language server on ${rig.sshd.username}@127.0.0.1:${rig.sshd.port}`);
    expect(result.tools[1]).toContain('npm install --save-dev typescript-language-server typescript');
  });
});
