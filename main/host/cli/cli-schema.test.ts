import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MockModelServer } from '#test-support/mock-model-server';
import { fastRetry, tempDir } from '#test-support/harness';
import { testTools } from '#test-support/tools';
import { runCli } from './cli';

// Issue 31: deft run --json-schema — the final answer is JSON valid against the schema, corrected when it is not.

let server: MockModelServer;
let workspace: string;
let home: string;

beforeEach(async () => {
  server = new MockModelServer();
  await server.start();
  workspace = await tempDir('deft-cli-schema-ws-');
  home = await tempDir('deft-cli-schema-home-');
});
afterEach(() => server.close());

const answer = (text: string) => ({ chunks: [{ text }, { finish: 'stop' as const }] });
const schema = JSON.stringify({
  type: 'object',
  properties: { files: { type: 'array', items: { type: 'string' } }, count: { type: 'integer', minimum: 0 }, url: { type: 'string', format: 'uri' } },
  required: ['files', 'count'],
  additionalProperties: false,
});

async function run(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(['run', '--base-url', server.baseUrl, '--model', 'm', ...args], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { DEFT_HOME: home },
    cwd: workspace,
    coreOptions: { retry: fastRetry, tools: () => testTools },
  });
  return { code, stdout, stderr };
}

const userTexts = (i: number) =>
  server.requests[i]!.body.messages.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));

describe('deft run --json-schema', () => {
  it('tells the model the schema, sends a wrong answer back with its errors, and returns the corrected one as structured_output', async () => {
    server.enqueue(
      answer('Here you go: {"files": ["a.ts"]}'),
      answer('{"files": ["a.ts"], "count": "one"}'),
      answer('```json\n{"files": ["a.ts"], "count": 1}\n```'),
    );
    const result = await run('--output-format', 'json', '--json-schema', schema, 'which files?');
    expect(result.code).toBe(0);
    expect(userTexts(0).join('\n')).toContain('"additionalProperties":false');
    const second = userTexts(1).at(-1)!;
    expect(second).toContain('did not pass the JSON Schema check');
    expect(second).toContain('not JSON');
    expect(userTexts(2).at(-1)).toContain('count must be integer');
    const json = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ subtype: 'success', is_error: false, structured_output: { files: ['a.ts'], count: 1 } });
    expect(json.num_turns).toBe(3);
    expect(result.stderr).toContain('asking again (2 of 3)');
  });

  it('right the first time: one request, structured_output; formats are checked (ajv-formats)', async () => {
    await writeFile(join(workspace, 'schema.json'), schema);
    server.enqueue(answer('{"files": [], "count": 0, "url": "not a uri"}'), answer('{"files": [], "count": 0, "url": "https://example.com/x"}'));
    const result = await run('--output-format', 'json', '--json-schema', 'schema.json', 'go');
    expect(result.code).toBe(0);
    expect(userTexts(1).at(-1)).toContain('must match format "uri"');
    expect(JSON.parse(result.stdout)).toMatchObject({ structured_output: { files: [], count: 0, url: 'https://example.com/x' } });
  });

  it('fails after three wrong answers: exit 1, error_max_structured_output_retries, no structured_output', async () => {
    server.fallback = () => answer('nope');
    const result = await run('--output-format', 'json', '--json-schema', schema, 'go');
    expect(result.code).toBe(1);
    expect(server.requests).toHaveLength(3);
    const json = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ subtype: 'error_max_structured_output_retries', is_error: true, result: 'nope' });
    expect(json).not.toHaveProperty('structured_output');
    expect(String(json.error)).toContain('after 3 attempts');
  });

  it('a bad schema is a usage error (exit 2), before the model is asked: not JSON, not a schema, huge, a $ref loop, a missing file', async () => {
    const cases: [string, string | RegExp][] = [
      ['{"type": ', 'not valid JSON'],
      ['{"type": "nonsense"}', 'not a schema that can be checked'],
      [JSON.stringify({ type: 'object', description: 'x'.repeat(70_000) }), 'larger than 64 KB'],
      ['{"$ref": "#"}', /can(not)? be checked/],
      ['{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}', /can(not)? be checked/],
      ['missing.json', 'not a file'],
    ];
    for (const [given, message] of cases) {
      const result = await run('--output-format', 'json', '--json-schema', given, 'go');
      expect(result.code, given.slice(0, 40)).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stdout).toBe('');
    }
    expect(server.requests).toHaveLength(0);
  });

  it('a recursive schema that terminates is fine (a tree)', async () => {
    const tree = JSON.stringify({
      $ref: '#/definitions/node',
      definitions: { node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/definitions/node' } } } } },
    });
    server.enqueue(answer('{"children": [{"children": []}]}'));
    const result = await run('--output-format', 'json', '--json-schema', tree, 'go');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ structured_output: { children: [{ children: [] }] } });
  });
});
