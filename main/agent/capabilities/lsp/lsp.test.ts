import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { createHarness } from '#test-support/harness';
import type { MockChunk } from '#test-support/mock-model-server';
import { TrustStore } from '#infra/settings/trust';
import { workspacePlace } from '#infra/environment/workspace-place';

// Real servers (typescript-language-server + typescript, pyright) in the real sandbox; a cold start on a busy machine
// takes a while, so the tests wait long for diagnostics (the bound itself is tried with a server that never answers).
const COLD = 120_000;

let h: Awaited<ReturnType<typeof createHarness>>;
afterEach(async () => {
  await h?.dispose();
});

const call = (name: string, args: unknown, id: string): MockChunk => ({ toolCall: { id, name, args: JSON.stringify(args) } });
function script(...steps: MockChunk[][]) {
  for (const step of steps) h.server.enqueue({ chunks: [...step, { finish: 'tool_calls' }] });
  h.server.enqueue({ chunks: [{ text: 'Done.' }, { finish: 'stop' }] });
}
/** What the model was told for each call, by call id, over the whole session. */
function results(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of h.sessionEvents('tool.call.result') as Array<Extract<SessionEvent, { type: 'tool.call.result' }>>)
    out[e.callId] = typeof e.output === 'string' ? e.output : JSON.stringify(e.output);
  return out;
}
function resultDisplay(callId: string): unknown {
  return (h.sessionEvents('tool.call.result') as Array<Extract<SessionEvent, { type: 'tool.call.result' }>>).find((e) => e.callId === callId)?.display;
}

/** Set Deft's `lsp` settings, keeping the rest (the provider, the permission mode). */
async function setLsp(lsp: Record<string, unknown>) {
  const path = join(h.home, 'settings.json');
  const current = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  await writeFile(path, JSON.stringify({ ...current, lsp }));
}

async function harness(lsp: Record<string, unknown> = {}, trusted = true) {
  h = await createHarness();
  await setLsp({ diagnosticsWaitMs: COLD, ...lsp });
  if (trusted) await new TrustStore(h.home, workspacePlace(h.workspace)).trust();
  return h;
}

describe('TypeScript through typescript-language-server', () => {
  it(
    'reports the error an Edit introduced with its line, none after the fix, and finds definitions and references across files',
    async () => {
      await harness();
      await writeFile(
        join(h.workspace, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', types: [] } }),
      );
      await writeFile(join(h.workspace, 'math.ts'), 'export function add(a: number, b: number): number {\n  return a + b;\n}\n');
      await writeFile(join(h.workspace, 'main.ts'), "import { add } from './math';\n\nconst total: number = add(1, 2);\nconsole.log(total);\n");
      script(
        [call('Read', { path: 'main.ts' }, 'r1')],
        [call('Edit', { path: 'main.ts', old_string: 'const total: number', new_string: 'const total: string' }, 'e1')],
        [call('Edit', { path: 'main.ts', old_string: 'const total: string', new_string: 'const total: number' }, 'e2')],
        [call('LSP', { operation: 'definition', path: 'main.ts', symbol: 'add', line: 3 }, 'd1')],
        [call('LSP', { operation: 'references', path: 'math.ts', line: 1, column: 17 }, 'f1')],
        [call('LSP', { operation: 'hover', path: 'main.ts', symbol: 'total' }, 'h1')],
      );
      await h.run('Break it, fix it, then look around');
      const got = results();
      expect(got.e1).toContain('The typescript language server reports 1 new error in main.ts after this change:');
      expect(got.e1).toMatch(/main\.ts:3:7 error TS2322: Type 'number' is not assignable to type 'string'\./);
      expect(resultDisplay('e1')).toMatchObject({
        kind: 'diff',
        diagnostics: { server: 'typescript', problems: [{ line: 3, column: 7, severity: 'error', code: 'TS2322' }], more: 0 },
      });
      expect(got.e2).toBe('Replaced 1 occurrence in main.ts (first at line 3).');
      expect(resultDisplay('e2')).toMatchObject({ kind: 'diff', diagnostics: { server: 'typescript', problems: [] } });
      expect(got.d1).toMatch(/^math\.ts:1:17 {2}export function add/);
      expect(got.f1!.split('\n').sort()).toEqual(
        [expect.stringMatching(/^main\.ts:1:10 /), expect.stringMatching(/^main\.ts:3:23 /), expect.stringMatching(/^math\.ts:1:17 /)].sort(),
      );
      expect(got.h1).toContain('const total: number');
      const status = await h.core.handlers.lspStatus({});
      expect(status.servers.find((s) => s.id === 'typescript')).toMatchObject({ state: 'running', crashes: 0 });
    },
    COLD * 2,
  );

  it(
    'reports a type error a Write of a new file introduced, and the Write of a clean file adds nothing',
    async () => {
      await harness();
      await writeFile(join(h.workspace, 'package.json'), '{"type":"module"}');
      script(
        [call('Write', { path: 'ok.ts', content: 'export const n: number = 1;\n' }, 'w1')],
        [call('Write', { path: 'bad.ts', content: 'export const n: number = 1;\nexport const s: string = n;\n' }, 'w2')],
      );
      await h.run('Write two files');
      const got = results();
      expect(got.w1).toBe('Created ok.ts and wrote 28 bytes.');
      expect(got.w2).toMatch(/bad\.ts:2:14 error TS2322: Type 'number' is not assignable to type 'string'\./);
    },
    COLD * 2,
  );
});

describe('Python through pyright', () => {
  it(
    'reports the error an Edit introduced',
    async () => {
      await harness();
      await writeFile(join(h.workspace, 'app.py'), 'def double(x: int) -> int:\n    return x * 2\n\n\nresult: int = double(2)\n');
      script(
        [call('Read', { path: 'app.py' }, 'r1')],
        [call('Edit', { path: 'app.py', old_string: 'result: int = double(2)', new_string: 'result: str = double(2)' }, 'e1')],
      );
      await h.run('Change the type');
      const got = results();
      expect(got.e1).toContain('The pyright language server reports 1 new error in app.py after this change:');
      expect(got.e1).toMatch(/app\.py:5:15 error reportAssignmentType: .*"int" is not assignable to "str"/);
    },
    COLD * 2,
  );
});

describe('bounds, crashes and trust', () => {
  it(
    'returns an Edit within the bound when the server never answers, and tells the model nothing it does not know',
    async () => {
      await harness({ diagnosticsWaitMs: 1_000 });
      const silent = join(h.home, 'silent-server.mjs');
      await writeFile(silent, 'process.stdin.resume(); setInterval(() => {}, 1000);\n');
      await setLsp({ diagnosticsWaitMs: 1_000, servers: { silent: { command: [process.execPath, silent], globs: ['**/*.slow'] } } });
      await writeFile(join(h.workspace, 'a.slow'), 'one\n');
      script([call('Read', { path: 'a.slow' }, 'r1')], [call('Edit', { path: 'a.slow', old_string: 'one', new_string: 'two' }, 'e1')]);
      const started = Date.now();
      await h.run('Edit the slow file');
      expect(results().e1).toBe('Replaced 1 occurrence in a.slow (first at line 1).');
      // The turn is not held by the server: two model steps and an edit, far below the 60 s a start may take.
      expect(Date.now() - started).toBeLessThan(30_000);
      expect((await h.core.handlers.lspStatus({})).servers.find((s) => s.id === 'silent')).toMatchObject({ source: 'user', state: 'starting' });
    },
    COLD,
  );

  it(
    'starts nothing a repository ships before the folder is trusted: its typescript and its tsconfig plugin stay unloaded',
    async () => {
      await harness({ diagnosticsWaitMs: 2_000 }, false);
      const marker = join(h.workspace, 'ran.txt');
      // A malicious repository: its own "typescript" and a tsserver plugin, each leaving a mark when run.
      await mkdir(join(h.workspace, 'node_modules', 'typescript', 'lib'), { recursive: true });
      await writeFile(join(h.workspace, 'node_modules', 'typescript', 'package.json'), '{"name":"typescript","version":"6.0.3"}');
      await writeFile(
        join(h.workspace, 'node_modules', 'typescript', 'lib', 'tsserver.js'),
        `require('node:fs').appendFileSync(${JSON.stringify(marker)}, 'tsserver\\n');\n`,
      );
      await mkdir(join(h.workspace, 'node_modules', 'evil-plugin'), { recursive: true });
      await writeFile(
        join(h.workspace, 'node_modules', 'evil-plugin', 'index.js'),
        `require('node:fs').appendFileSync(${JSON.stringify(marker)}, 'plugin\\n'); module.exports = () => ({ create: (info) => info.languageService });\n`,
      );
      await writeFile(join(h.workspace, 'tsconfig.json'), JSON.stringify({ compilerOptions: { plugins: [{ name: 'evil-plugin' }] } }));
      await writeFile(join(h.workspace, 'main.ts'), 'const x: number = 1;\n');
      script(
        [call('Read', { path: 'main.ts' }, 'r1')],
        [call('Edit', { path: 'main.ts', old_string: 'const x: number = 1', new_string: 'const x: string = 1' }, 'e1')],
      );
      await h.run('Edit in an untrusted folder');
      expect(results().e1).toBe('Replaced 1 occurrence in main.ts (first at line 1).');
      const status = await h.core.handlers.lspStatus({});
      expect(status.trusted).toBe(false);
      expect(status.servers.every((s) => s.state === 'not-started')).toBe(true);
      expect(existsSync(marker)).toBe(false);
      // The model is not offered the tool there.
      expect(h.server.requests[0]!.body.tools!.map((t) => t.function.name)).not.toContain('LSP');

      // Trusted, the workspace's own typescript is what runs (in the sandbox): the mark shows this test could fail.
      await new TrustStore(h.home, workspacePlace(h.workspace)).trust();
      script([call('Edit', { path: 'main.ts', old_string: 'const x: string = 1', new_string: 'const x: number = 1' }, 'e2')]);
      await h.run('Edit in the trusted folder');
      await expect.poll(() => existsSync(marker), { timeout: 60_000 }).toBe(true);
    },
    COLD,
  );

  it('starts no server for a turn that touches no file', async () => {
    await harness();
    await writeFile(join(h.workspace, 'tsconfig.json'), '{}');
    h.server.enqueue({ chunks: [{ text: 'Hello.' }, { finish: 'stop' }] });
    await h.run('Say hello');
    const status = await h.core.handlers.lspStatus({});
    expect(status.servers.length).toBeGreaterThan(0);
    expect(status.servers.every((s) => s.state === 'not-started')).toBe(true);
    expect(h.server.requests[0]!.body.tools!.map((t) => t.function.name)).toContain('LSP');
  });
});
