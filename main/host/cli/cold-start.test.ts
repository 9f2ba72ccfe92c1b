import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { tempDir } from '#test-support/harness';
import { runCliProcess } from '#test-support/cli-process';

// Issue 36: a one-shot text turn loads what it uses. The packages below serve tools, rules, other hosts or
// other kinds of content; each is loaded where it is first needed (infra/platform/on-demand.ts, a dynamic
// import), so a text-only `deft run` must not load any of them. (bench/cold-start.bench.ts measures the cost.)
const NOT_IN_A_TEXT_TURN = [
  'picomatch', // permission rules, ignore files, language servers' globs
  'ipaddr.js', // the web tools' and the sandbox proxy's address checks
  'fuzzysort', // the file index (@-mentions)
  'croner', // scheduled prompts
  'unpdf', // PDFs fetched by FetchURL
  'web-tree-sitter', // the shell command parser
  'tree-sitter-bash',
  'sharp', // images
  '@modelcontextprotocol/sdk', // MCP servers
  'chokidar', // watching skills and settings
  'undici', // the web tools' client
  'linkedom', // the web converter
  'turndown',
  'ssh2', // remote workspaces
  'yaml',
  'ajv',
  'diff',
];

// Node's own modules a text turn over http has no use for: processes (child_process, which brings dgram and more),
// https (and TLS: loaded with the first https request) and zlib (the checkpoint store's objects). Each is loaded
// where it is first needed (process.getBuiltinModule), which the log does not see: an import would be in it.
const BUILTINS_NOT_IN_A_TEXT_TURN = ['node:child_process', 'node:https', 'node:zlib'];

let server: MockModelServer;
let workspace: string;
let home: string;
beforeEach(async () => {
  server = new MockModelServer();
  await server.start();
  workspace = await tempDir('deft-cold-ws-');
  home = await tempDir('deft-cold-home-');
});
afterEach(() => server.close());

it('a text-only deft run loads none of the packages only tools, rules and other hosts use', async () => {
  const log = join(home, 'loaded.txt');
  const hook = pathToFileURL(resolve(import.meta.dirname, '../../../test-support/load-log.mjs')).href;
  const run = await runCliProcess(['run', '--base-url', server.baseUrl, '--model', 'mock-model', 'What is this project?'], {
    cwd: workspace,
    env: { HOME: home, DEFT_HOME: home, DEFT_LOAD_LOG: log, NODE_OPTIONS: `--import ${hook}` },
  });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('Echo: What is this project?');
  const loaded = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
  // The log works: the CLI's own modules and the one package a turn uses (zod) are in it.
  expect(loaded.some((url) => url.endsWith('/main/host/cli/cli.ts'))).toBe(true);
  expect(loaded.some((url) => url.includes('/node_modules/zod/'))).toBe(true);
  const packages = NOT_IN_A_TEXT_TURN.filter((name) => loaded.some((url) => url.includes(`/node_modules/${name}/`)));
  expect(packages).toEqual([]);
  // Builtins are in the log too (the CLI's modules import node:fs, node:path…).
  expect(loaded).toContain('node:path');
  expect(BUILTINS_NOT_IN_A_TEXT_TURN.filter((name) => loaded.includes(name))).toEqual([]);
}, 60_000);

// A step whose calls are right (a Read, a Bash `ls`) passes the arguments' check without a JSON Schema engine, and a
// command line of plain words is split without the Bash grammar: Ajv with its meta-schemas, and the grammar's
// WebAssembly, each cost more CPU than the step's own work (bench/peers.bench.ts).
it('a deft run whose model reads a file and runs a plain command loads no JSON Schema engine and no shell grammar', async () => {
  const { writeFile } = await import('node:fs/promises');
  await writeFile(join(workspace, 'README.md'), '# A small project\n');
  server.enqueue(
    {
      chunks: [
        { toolCall: { name: 'Read', args: JSON.stringify({ path: 'README.md' }) } },
        { toolCall: { name: 'Bash', args: JSON.stringify({ command: 'ls', description: 'List files' }) } },
        { finish: 'tool_calls' },
      ],
    },
    { chunks: [{ text: 'It is a small project.' }, { finish: 'stop' }] },
  );
  const log = join(home, 'loaded.txt');
  const hook = pathToFileURL(resolve(import.meta.dirname, '../../../test-support/load-log.mjs')).href;
  const run = await runCliProcess(
    ['run', '--base-url', server.baseUrl, '--model', 'mock-model', '--permission-mode', 'yolo', '--sandbox', 'off', 'What is this project?'],
    { cwd: workspace, env: { HOME: home, DEFT_HOME: home, DEFT_LOAD_LOG: log, NODE_OPTIONS: `--import ${hook}` } },
  );
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('It is a small project.');
  // Both calls ran and their results reached the model.
  const results = JSON.stringify(server.requests.at(-1)!.body.messages.filter((m) => m.role === 'tool'));
  expect(results).toContain('A small project');
  expect(results).toContain('README.md');
  expect(results).not.toContain('Invalid arguments');
  const loaded = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
  expect(loaded.some((url) => url.endsWith('/main/host/cli/cli.ts'))).toBe(true);
  expect(loaded.filter((url) => /\/node_modules\/(ajv|ajv-formats|fast-uri|json-schema-traverse|web-tree-sitter|tree-sitter-bash)\//.test(url))).toEqual([]);
}, 60_000);

// The schemas a text turn validates nothing against are built the first time they are used (builtOnce holders):
// approvals (but the permission mode every turn reads), skills, hooks, tasks, web, preferences and goals, and the
// command table, the events and the displays. test-support/schema-log.mjs notes the module that built each schema.
const SCHEMAS_NOT_BUILT_IN_A_TEXT_TURN = ['skills', 'hooks', 'tasks', 'web', 'preferences', 'goals', 'commands', 'events'].map(
  (name) => `/protocol/schemas/${name}.ts`,
);

const BUILT_ON_FIRST_READ = [
  '/capabilities/mcp/config.ts',
  '/infra/sessions/inbox.ts',
  '/infra/plugins/store.ts',
  '/capabilities/checkpoints/rewind.ts',
  '/protocol/schemas/display.ts',
  '/capabilities/shell/cron/scheduler.ts',
  '/capabilities/skills/roots.ts',
  '/infra/worktrees/settings.ts',
];

it('a text-only deft run builds none of the schemas of approvals, skills, hooks, tasks, web, preferences, goals, commands, events, sessions, settings commands, plugin manifests or files it has none of', async () => {
  const log = join(home, 'schemas.txt');
  const hook = pathToFileURL(resolve(import.meta.dirname, '../../../test-support/schema-log.mjs')).href;
  const run = await runCliProcess(['run', '--base-url', server.baseUrl, '--model', 'mock-model', 'What is this project?'], {
    cwd: workspace,
    env: { HOME: home, DEFT_HOME: home, DEFT_SCHEMA_LOG: log, NODE_OPTIONS: `--import ${hook}` },
  });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('Echo: What is this project?');
  const builtBy = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
  // The log works: the settings a turn reads are checked by schemas built in infra/settings/settings-store.ts.
  expect(builtBy.some((file) => file.endsWith('/infra/settings/settings-store.ts'))).toBe(true);
  // Of the protocol's settings schemas, only the provider kind the stored settings are checked with (the settings
  // commands' and events' are built with them, on first use).
  expect(builtBy.filter((file) => file.endsWith('/protocol/schemas/settings.ts'))).toHaveLength(1);
  expect([...new Set(builtBy.filter((file) => SCHEMAS_NOT_BUILT_IN_A_TEXT_TURN.some((name) => file.endsWith(name))))]).toEqual([]);
  // Nor the plugin and marketplace manifests' (a hundred schemas), with no plugin to read.
  expect(builtBy.filter((file) => file.endsWith('/infra/plugins/manifest.ts'))).toEqual([]);
  // Nor those of files a text turn with none of them to read never checks: the session protocol's (but the effort
  // setting), the MCP servers' formats, the mailbox's messages, the plugin registry, the last rewind, diff hunks,
  // scheduled prompts, the skills' and worktrees' settings (about two hundred and fifty schemas, all built at load before).
  expect([...new Set(builtBy.filter((file) => BUILT_ON_FIRST_READ.some((name) => file.endsWith(name))))]).toEqual([]);
  expect(builtBy.filter((file) => file.endsWith('/protocol/schemas/session.ts'))).toHaveLength(1);
  // Of the approvals' schemas, only the permission mode (one enum; built at load, the file made 138).
  expect(builtBy.filter((file) => file.endsWith('/protocol/schemas/approvals.ts'))).toHaveLength(1);
  // Each of those is built when it is first used: the approvals' schemas by an approval answer.
  const { approvalSchemas } = await import('#protocol/schemas/approvals');
  expect(approvalSchemas().ApprovalAnswer.safeParse({ decision: 'approve' }).success).toBe(true);
  const { sessionSchemas } = await import('#protocol/schemas/session');
  expect(sessionSchemas().Usage.safeParse({ inputTokens: 1.5, outputTokens: 0 }).success).toBe(false);
}, 60_000);
