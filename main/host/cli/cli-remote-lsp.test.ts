import { existsSync } from 'node:fs';
import { mkdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { fastRetry, tempDir } from '#test-support/harness';
import { type TestSshd, startSshd } from '#test-support/sshd';
import { type CliIo, runCli } from './cli';

// Issue 33 on issue 29's remote folders: a remote workspace's language server is found and run on the remote machine.
// The sshd runs in a mount namespace of its own where the remote folder (`there`) shows at `path`; this machine's
// folder at `path` has no node_modules at all, so a server found and started proves it was found there. The
// workspace's `node_modules/.bin/typescript-language-server` is a script that writes the mount namespace it ran in
// and then runs this repository's typescript-language-server (the "remote" machine shares this one's other folders).

const REPO_MODULES = resolve(import.meta.dirname, '../../../node_modules');
const COLD = 120_000;

let sshd: TestSshd;
let server: MockModelServer;
let there: string;
let path: string;
let home: string;
let userHome: string;
let cwd: string;
let hereNs: string;

beforeAll(async () => {
  there = await tempDir('deft-remote-lsp-there-');
  path = await tempDir('deft-remote-lsp-path-');
  const started = await startSshd({ binds: [{ from: there, to: path }] });
  if (!started) throw new Error('OpenSSH (openssh-server) is not installed: apt-get install openssh-server openssh-client');
  sshd = started;
  server = new MockModelServer();
  await server.start();
  hereNs = await readlink('/proc/self/ns/mnt');
}, 30_000);
afterAll(async () => {
  await server?.close();
  await sshd?.stop();
});

const MAIN = "import { add } from './math';\n\nconst total: number = add(1, 2);\nconsole.log(total);\n";

beforeEach(async () => {
  home = await tempDir('deft-remote-lsp-home-');
  userHome = await tempDir('deft-remote-lsp-user-');
  cwd = await tempDir('deft-remote-lsp-cwd-');
  await mkdir(join(userHome, '.ssh'), { mode: 0o700 });
  await writeFile(join(userHome, '.ssh', 'id_ed25519'), sshd.privateKey, { mode: 0o600 });
  await writeFile(join(userHome, '.ssh', 'known_hosts'), await readFile(sshd.knownHosts));
  await writeFile(join(home, 'settings.json'), JSON.stringify({ lsp: { diagnosticsWaitMs: COLD } }));
  for (const dir of [there, path])
    for (const name of ['node_modules', 'lsp-ns.txt', 'lsp-env.txt', 'lsp-pid.txt']) await rm(join(dir, name), { recursive: true, force: true });
  await writeFile(
    join(there, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', types: [] } }),
  );
  await writeFile(join(there, 'math.ts'), 'export function add(a: number, b: number): number {\n  return a + b;\n}\n');
  await writeFile(join(there, 'main.ts'), MAIN);
  // This machine's folder of the same path: another main.ts, and no language server.
  await writeFile(join(path, 'main.ts'), '// not the remote file\n');
});

/** The remote workspace's own typescript-language-server (and its typescript), as `npm install` would leave them. */
async function installServerThere() {
  await mkdir(join(there, 'node_modules', '.bin'), { recursive: true });
  const cli = join(REPO_MODULES, 'typescript-language-server', 'lib', 'cli.mjs');
  const script = `#!/bin/sh\nreadlink /proc/self/ns/mnt > lsp-ns.txt\nenv > lsp-env.txt\necho $$ > lsp-pid.txt\nexec '${process.execPath}' '${cli}' "$@"\n`;
  await writeFile(join(there, 'node_modules', '.bin', 'typescript-language-server'), script, { mode: 0o755 });
  await symlink(join(REPO_MODULES, 'typescript'), join(there, 'node_modules', 'typescript'));
}

/** Whether a process is alive, after a moment to end. */
async function aliveAfterAWhile(pid: number): Promise<boolean> {
  for (let i = 0; i < 50 && existsSync(`/proc/${pid}`); i++) await new Promise((r) => setTimeout(r, 100));
  return existsSync(`/proc/${pid}`);
}

const remoteId = () => `ssh://${sshd.username}@127.0.0.1:${sshd.port}${path}`;
const trustRemote = () => writeFile(join(home, 'trust.json'), JSON.stringify({ folders: { [remoteId()]: { trusted: true } } }));

async function run(...steps: Parameters<MockModelServer['enqueue']>) {
  let stderr = '';
  const io: CliIo = {
    stdout: () => {},
    stderr: (t) => (stderr += t),
    env: { DEFT_HOME: home, HOME: userHome, USER: sshd.username },
    cwd,
    coreOptions: { retry: fastRetry },
  };
  server.enqueue(...steps);
  const target = `${sshd.username}@127.0.0.1:${sshd.port}:${path}`;
  const code = await runCli(['run', '--base-url', server.baseUrl, '--model', 'm', '--permission-mode', 'yolo', '--remote', target, 'go'], io);
  const tools = server.requests
    .at(-1)!
    .body.messages.filter((m) => m.role === 'tool')
    .map((m) => String(m.content));
  return { code, stderr, tools };
}

const edit = () => [
  toolStep(callChunk('Read', { path: `${path}/main.ts` })),
  toolStep(callChunk('Edit', { path: `${path}/main.ts`, old_string: 'const total: number', new_string: 'const total: string' })),
];

describe('deft run --remote: language servers', () => {
  it('a trusted remote folder’s own server runs there: an Edit gets its type error with the line, and LSP definition works', { timeout: 180_000 }, async () => {
    await installServerThere();
    await trustRemote();
    const result = await run(...edit(), toolStep(callChunk('LSP', { operation: 'definition', path: 'main.ts', line: 3, symbol: 'add' })), textReply('Done.'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('language servers');
    const [, edited, definition] = result.tools;
    expect(edited).toMatch(/The typescript language server reports 1 new error in main\.ts after this change:\n {2}main\.ts:3:7 error TS2322/);
    expect(definition).toMatch(/^math\.ts:1:17 {2}export function add/);
    // It ran on the remote machine, in the remote folder, with the scrubbed environment.
    expect((await readFile(join(there, 'lsp-ns.txt'), 'utf8')).trim()).not.toBe(hereNs);
    expect(existsSync(join(path, 'lsp-ns.txt'))).toBe(false);
    const env = await readFile(join(there, 'lsp-env.txt'), 'utf8');
    expect(env).toMatch(/^NO_COLOR=1$/m);
    expect(env).not.toMatch(/^(DEFT_|SSH_AUTH_SOCK)/m);
    // The run ended its server there (the sshd shares this machine's process ids).
    const pid = Number(await readFile(join(there, 'lsp-pid.txt'), 'utf8'));
    expect(pid).toBeGreaterThan(0);
    expect(await aliveAfterAWhile(pid)).toBe(false);
    // The edit itself landed there.
    expect(await readFile(join(there, 'main.ts'), 'utf8')).toContain('const total: string');
  });

  it('an untrusted remote folder starts no server: the Edit result has no diagnostics', { timeout: 60_000 }, async () => {
    await installServerThere();
    // Trusting this machine's folder of the same path trusts nothing there.
    await writeFile(join(home, 'trust.json'), JSON.stringify({ folders: { [path]: { trusted: true } } }));
    const result = await run(...edit(), textReply('Done.'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.tools[1]).toMatch(/^Replaced 1 occurrence/);
    expect(result.tools[1]).not.toContain('language server');
    expect(existsSync(join(there, 'lsp-ns.txt'))).toBe(false);
    expect(server.requests.at(-1)!.body.tools!.some((t) => t.function.name === 'LSP')).toBe(false);
  });

  it('with no server on the remote, the Edit says once what to install there', { timeout: 60_000 }, async () => {
    await trustRemote();
    const result = await run(...edit(), textReply('Done.'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.tools[1]).toContain(`No TypeScript/JavaScript language server on ${sshd.username}@127.0.0.1:${sshd.port}`);
    expect(result.tools[1]).toContain('npm install --save-dev typescript-language-server typescript');
  });
});
