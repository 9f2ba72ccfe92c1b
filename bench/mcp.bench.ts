import { readFile, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { type ServerDefinition, configFiles, loadMcpConfig } from '../main/agent/capabilities/mcp/config';
import { ServerConnection } from '../main/agent/capabilities/mcp/connection';
import { directLauncher } from '../main/agent/capabilities/mcp/launch';
import { McpServers } from '../main/agent/capabilities/mcp/servers';
import { createHarness, tempDir } from '../test-support/harness';
import { textReply } from '../test-support/mock-steps';
import { validateArgs } from '../main/agent/runtime/tools/validate';
import { type BenchResult, median } from './types';

const TEST_SERVER = resolve(import.meta.dirname, '../test-support/mcp-test-server.mjs');
const stdio = (env: Record<string, string> = {}) => ({ command: process.execPath, args: [TEST_SERVER], env });
const TOOLS = 200;
/** The test server has 11 tools of its own. */
const GENERATED = TOOLS - 11;

/** Bytes of the first model request of a session whose MCP server brings 200 tools. */
async function requestBytes(deferAbove: number): Promise<number> {
  const h = await createHarness();
  try {
    await writeFile(join(h.home, 'mcp.json'), JSON.stringify({ mcpServers: { many: stdio({ MCP_TEST_TOOLS: String(GENERATED) }) } }));
    const raw = JSON.parse(await readFile(join(h.home, 'settings.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(h.home, 'settings.json'), JSON.stringify({ ...raw, mcp: { deferAbove } }));
    for (let i = 0; i < 300; i++) {
      const overview = await h.core.handlers.listMcpServers({});
      if (overview.servers[0]?.status === 'connected') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    h.server.enqueue(textReply('ok'));
    await h.run('hello');
    const body = h.server.requests[0]!.body;
    const mcpTools = body.tools!.filter((t) => t.function.name.startsWith('mcp__')).length;
    if (deferAbove < TOOLS ? mcpTools !== 0 : mcpTools !== TOOLS)
      throw new Error(`expected ${deferAbove < TOOLS ? 0 : TOOLS} MCP tools in the request, got ${mcpTools}`);
    return Buffer.byteLength(JSON.stringify(body));
  } finally {
    await h.dispose();
  }
}

/** Five stdio servers to their first tool list: McpServers starts them in parallel; the baseline one after another. */
async function startup(): Promise<{ parallel: number; serial: number }> {
  const home = await tempDir('deft-bench-mcp-');
  const workspace = await tempDir('deft-bench-mcp-ws-');
  const servers = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`s${i}`, stdio()]));
  await writeFile(join(home, 'mcp.json'), JSON.stringify({ mcpServers: servers }));
  const definitions: ServerDefinition[] = (await loadMcpConfig(configFiles({ home, workspace }), {})).servers;
  const parallel = await median(3, async () => {
    const manager = new McpServers({
      home,
      workspace,
      env: {},
      launch: directLauncher,
      onChange: () => {},
      gates: {
        trusted: async () => true,
        decisions: async () => ({}),
        decide: async () => {},
        disabled: async () => [],
        setDisabled: async () => {},
        allowedByName: async () => [],
      },
    });
    const t0 = performance.now();
    await manager.sync();
    await manager.whenSettled();
    const ms = performance.now() - t0;
    if (manager.connected().length !== 5) throw new Error('not every server connected');
    await manager.close();
    return ms;
  });
  const serial = await median(3, async () => {
    const t0 = performance.now();
    const open: ServerConnection[] = [];
    for (const definition of definitions) {
      const connection = new ServerConnection({
        definition,
        workspace,
        neutralCwd: home,
        launch: directLauncher,
        clientVersion: 'bench',
        onToolsChanged: () => {},
        onClosed: () => {},
      });
      await connection.open();
      open.push(connection);
    }
    const ms = performance.now() - t0;
    await Promise.all(open.map((c) => c.close()));
    return ms;
  });
  return { parallel, serial };
}

/**
 * A hostile MCP schema's `pattern` (catastrophic backtracking) checked against a near match: Deft's validation
 * (linear-time engine) on 36 characters, the example, against JavaScript's own RegExp on 22 — each two
 * more characters multiply its time by about four, so 36 would take hours.
 */
async function hostilePattern(): Promise<{ deft: number; native: number; nativeChars: number }> {
  const text = `${'a'.repeat(36)}!`;
  let run = 0;
  const deft = await median(5, async () => {
    // A schema not seen before each time (validators are cached by text): its compilation is part of the cost.
    const field = `text${run++}`;
    const schema = { type: 'object', properties: { [field]: { type: 'string', pattern: '^(a+)+$' } } };
    const t0 = performance.now();
    const problems = validateArgs(schema, { [field]: text });
    const ms = performance.now() - t0;
    if (problems.length !== 1) throw new Error(`expected the pattern to refuse the text, got ${JSON.stringify(problems)}`);
    return ms;
  });
  const nativeChars = 22;
  const native = await median(3, async () => {
    const t0 = performance.now();
    if (new RegExp('^(a+)+$', 'u').test(`${'a'.repeat(nativeChars)}!`)) throw new Error('the near match matched');
    return performance.now() - t0;
  });
  return { deft, native, nativeChars };
}

export default async function bench(): Promise<BenchResult[]> {
  const hostile = await hostilePattern();
  const deferred = await requestBytes(30);
  const inline = await requestBytes(10_000);
  const { parallel, serial } = await startup();
  return [
    {
      name: `MCP: first request with ${TOOLS} MCP tools, deferred`,
      value: deferred / 1024,
      unit: 'KiB',
      baseline: { name: 'same tools inline', value: inline / 1024 },
    },
    {
      name: 'MCP: a hostile schema pattern ^(a+)+$ on 36 characters (goal < 50 ms)',
      value: hostile.deft,
      unit: 'ms',
      baseline: { name: `JS RegExp on ${hostile.nativeChars}`, value: hostile.native },
      note: 'linear-time engine (re2js); JS RegExp would take hours on 36',
    },
    {
      name: 'MCP: 5 stdio servers to their tool lists (parallel)',
      value: parallel,
      unit: 'ms',
      baseline: { name: 'one by one', value: serial },
      note: `CPU-bound here: load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
    },
  ];
}
