import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerLauncher } from './process';
import type { ServerSpec } from './server-specs';
import { LanguageServers } from './servers';
import { findOnPath, userServers } from './server-specs';
import { introducedProblems } from './diagnostics';

// Plain processes (no sandbox): what is tried here is the lifecycle, not the containment (lsp.test.ts runs sandboxed).
const plain: ServerLauncher = async (spec, cwd) => ({
  file: spec.argv[0]!,
  args: spec.argv.slice(1),
  env: { PATH: process.env.PATH ?? '' },
  cwd,
  sandboxed: false,
  release: () => {},
});

let dir: string;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('LanguageServers', () => {
  it('restarts a crashing server after a backoff, then turns it off with one notice', async () => {
    dir = await mkdtemp(join(tmpdir(), 'deft-lsp-'));
    const crash = join(dir, 'crash.mjs');
    await writeFile(crash, "process.stderr.write('boom: no config\\n'); process.exit(3);\n");
    const spec: ServerSpec = { id: 'crashy', languages: ['python'], argv: [process.execPath, crash], source: 'user' };
    const notices: string[] = [];
    let now = 1_000;
    const servers = new LanguageServers({
      workspace: dir,
      launch: plain,
      specs: async () => [spec],
      idleMs: () => 0,
      backoffMs: () => 5_000,
      maxCrashes: 3,
      onNotice: (m) => notices.push(m),
      now: () => now,
    });
    const file = join(dir, 'a.py');
    const first = await servers.clientFor(file);
    expect(first.client).toBeNull();
    expect(first.client === null && first.reason).toMatch(/crashy exited while starting \(code 3\):\nboom: no config/);
    // Within the backoff it is not started again.
    expect(await servers.clientFor(file)).toMatchObject({ client: null, reason: expect.stringMatching(/crashed and restarts in 5 s/) });
    now += 5_000;
    expect((await servers.clientFor(file)).client).toBeNull();
    now += 5_000;
    expect((await servers.clientFor(file)).client).toBeNull();
    expect(notices).toEqual([
      expect.stringMatching(/^The crashy language server was turned off for this session after 3 failures\. Last error: crashy exited while starting/),
    ]);
    now += 60_000;
    expect(await servers.clientFor(file)).toMatchObject({ client: null, reason: expect.stringMatching(/turned off after crashing 3 times/) });
    expect(notices).toHaveLength(1);
    expect((await servers.states())[0]).toMatchObject({ id: 'crashy', state: 'off', crashes: 3 });
  });

  it('shuts an idle server down and starts it again when next needed', async () => {
    dir = await mkdtemp(join(tmpdir(), 'deft-lsp-'));
    const cli = join(process.cwd(), 'node_modules', 'typescript-language-server', 'lib', 'cli.mjs');
    const spec: ServerSpec = { id: 'typescript', languages: ['typescript'], argv: [process.execPath, cli, '--stdio'], source: 'builtin', pull: 'tsserver' };
    const servers = new LanguageServers({ workspace: dir, launch: plain, specs: async () => [spec], idleMs: () => 300 });
    const got = await servers.clientFor(join(dir, 'a.ts'));
    expect(got.client?.running).toBe(true);
    const pid = got.client!.pid!;
    await got.client!.exit;
    expect((await servers.states())[0]).toMatchObject({ state: 'stopped', crashes: 0 });
    expect(() => process.kill(pid, 0)).toThrow();
    const again = await servers.clientFor(join(dir, 'a.ts'));
    expect(again.client?.running).toBe(true);
    expect(again.client!.pid).not.toBe(pid);
    await servers.close();
  }, 60_000);
});

describe('server specs', () => {
  it('never takes a program from inside the workspace, nor from a relative PATH entry', async () => {
    dir = await mkdtemp(join(tmpdir(), 'deft-lsp-'));
    // A repository's own "gopls", on PATH through the workspace folder itself and a relative entry.
    await writeFile(join(dir, 'gopls'), '#!/bin/sh\n', { mode: 0o755 });
    expect(findOnPath('gopls', dir, `${dir}:.:`)).toBeNull();
    expect(findOnPath('gopls', dir, `${dir}/..:${dir}`)).toBeNull();
    expect(findOnPath('node', dir, `${dir}:${process.execPath.replace(/\/node$/, '')}`)).toBe(process.execPath);
  });

  it("reads the user's servers, one readable problem per unusable entry", () => {
    const { servers, problems } = userServers(
      {
        zig: { command: process.execPath, args: ['--stdio'], globs: ['**/*.zig'] },
        broken: { command: 42 },
        none: { command: process.execPath },
        missing: { command: 'no-such-server-xyz', languages: ['go'] },
      },
      '/nonexistent-workspace',
    );
    expect(servers).toEqual([{ id: 'zig', languages: [], globs: ['**/*.zig'], argv: [process.execPath, '--stdio'], env: {}, source: 'user' }]);
    expect(problems).toEqual([
      '"lsp.servers.broken".command must be a program name or an array of strings.',
      '"lsp.servers.none" serves nothing: give "languages" (e.g. ["go"]) or "globs" (e.g. ["**/*.zig"]).',
      '"lsp.servers.missing": "no-such-server-xyz" was not found (give an absolute path, or a program on your PATH outside the workspace).',
    ]);
  });
});

describe('introduced problems', () => {
  const d = (line: number, message: string, severity: 1 | 2 = 1) => ({
    range: { start: { line, character: 0 }, end: { line, character: 1 } },
    message,
    severity,
    code: 1,
  });
  it('matches by message, not line: a problem moved by the edit is not new, a second copy is', () => {
    expect(introducedProblems([d(3, 'A')], [d(5, 'A'), d(9, 'A'), d(1, 'B', 2)], false)).toEqual([
      { line: 10, column: 1, severity: 'error', message: 'A', code: '1' },
    ]);
    expect(introducedProblems([], [d(1, 'B', 2)], true)).toEqual([{ line: 2, column: 1, severity: 'warning', message: 'B', code: '1' }]);
  });
});
