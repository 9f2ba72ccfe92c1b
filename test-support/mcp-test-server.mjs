// A real MCP server for tests, written with the SDK. stdio by default; `--http PORT` serves Streamable HTTP
// on 127.0.0.1 (PORT 0 picks one and prints "listening <port>" on stdout).
// Environment: MCP_TEST_TOOLS=N adds N generated tools; MCP_TEST_PIDFILE appends this process's pid;
// MCP_TEST_FAIL_START=text writes text to stderr and exits before speaking MCP; MCP_TEST_STDERR writes a line;
// MCP_TEST_WRITE=path1:path2 tries to write each file and says on stderr how it went ("write <path>: ok" or the
// error code); MCP_TEST_GRANDCHILD=N starts `sleep N` in a session of its own that it never waits for;
// MCP_TEST_CONNECT=t1,t2 connects to each target (a unix path, `@name` for an abstract socket, or
// `host:port`) and says on stderr how it went ("connect <t>: ok" or the error code); MCP_TEST_SHOW_ENV=A,B
// writes "env A=<value>" for each.
// MCP_TEST_HOSTILE=1 adds hostile tools: `redos` (a catastrophic-backtracking pattern) and `deep` (a schema 3,000
// levels deep); MCP_TEST_CWD=path writes the server's working folder and PATH to that file.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { appendFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, GetPromptRequestSchema, ListPromptsRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

if (process.env.MCP_TEST_PIDFILE) appendFileSync(process.env.MCP_TEST_PIDFILE, `${process.pid}\n`);
if (process.env.MCP_TEST_FAIL_START) {
  process.stderr.write(`${process.env.MCP_TEST_FAIL_START}\n`);
  process.exit(3);
}
if (process.env.MCP_TEST_STDERR) process.stderr.write(`${process.env.MCP_TEST_STDERR}\n`);
for (const path of (process.env.MCP_TEST_WRITE ?? '').split(':').filter(Boolean)) {
  try {
    writeFileSync(path, 'written by an MCP server\n');
    process.stderr.write(`write ${path}: ok\n`);
  } catch (error) {
    process.stderr.write(`write ${path}: ${error.code}\n`);
  }
}
for (const target of (process.env.MCP_TEST_CONNECT ?? '').split(',').filter(Boolean)) {
  const tcp = /^(.+):(\d+)$/.exec(target);
  const socket = tcp ? connect(Number(tcp[2]), tcp[1]) : connect(target.startsWith('@') ? `\0${target.slice(1)}` : target);
  socket.on('connect', () => {
    process.stderr.write(`connect ${target}: ok\n`);
    socket.destroy();
  });
  socket.on('error', (error) => process.stderr.write(`connect ${target}: ${error.code}\n`));
}
for (const name of (process.env.MCP_TEST_SHOW_ENV ?? '').split(',').filter(Boolean)) process.stderr.write(`env ${name}=${process.env[name] ?? ''}\n`);
if (process.env.MCP_TEST_CWD) writeFileSync(process.env.MCP_TEST_CWD, JSON.stringify({ cwd: process.cwd(), path: process.env.PATH ?? '' }));
if (process.env.MCP_TEST_GRANDCHILD) spawn('sleep', [process.env.MCP_TEST_GRANDCHILD], { detached: true, stdio: 'ignore' }).unref();

const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const obj = (properties = {}, required = []) => ({ type: 'object', properties, required, additionalProperties: false });
const LONG = 'a_tool_with_a_remarkably_long_name_that_goes_on_and_on_past_the_limit';

const tools = [
  { name: 'echo', description: 'Echo the text back.\nSecond line of the description.', inputSchema: obj({ text: { type: 'string' } }, ['text']) },
  { name: 'image', description: 'Return a tiny PNG.', inputSchema: obj() },
  { name: 'resource', description: 'Return an embedded resource and a resource link.', inputSchema: obj() },
  { name: 'structured', description: 'Return structured content.', inputSchema: obj({ n: { type: 'integer', minimum: 1 } }, ['n']) },
  { name: 'slow', description: 'Take a while, reporting progress.', inputSchema: obj({ steps: { type: 'integer' }, ms: { type: 'integer' } }, ['steps']) },
  { name: 'fail', description: 'Return an error result.', inputSchema: obj() },
  { name: 'big', description: 'Return 150,000 characters.', inputSchema: obj() },
  { name: 'crash', description: 'Exit the server process.', inputSchema: obj() },
  { name: 'add_tool', description: 'Add the tool "extra" and announce list_changed.', inputSchema: obj() },
  { name: LONG, description: 'A tool with a long name.', inputSchema: obj() },
  {
    name: 'odd.name with spaces',
    description: 'A tool with an odd name.',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false } },
    },
  },
];
for (let i = 0; i < Number(process.env.MCP_TEST_TOOLS ?? 0); i++) {
  tools.push({
    name: `generated_${i}`,
    description: `Generated tool number ${i}: looks up a record by id and returns it with its history, owners and labels.`,
    inputSchema: obj(
      {
        id: { type: 'string', description: 'The record id.' },
        fields: { type: 'array', items: { type: 'string' }, description: 'Which fields to return.' },
        limit: { type: 'integer', minimum: 1, maximum: 100 },
      },
      ['id'],
    ),
  });
}

if (process.env.MCP_TEST_HOSTILE) {
  tools.push({
    name: 'redos',
    description: 'A pattern that backtracks for ever on a near match.',
    inputSchema: obj({ text: { type: 'string', pattern: '^(a+)+$' } }, ['text']),
  });
  let deep = { type: 'string' };
  for (let i = 0; i < 1_500; i++) deep = { type: 'object', properties: { next: deep } };
  tools.push({ name: 'deep', description: 'A schema 3,000 levels deep.', inputSchema: deep });
}

function makeServer() {
  const server = new Server({ name: 'deft-test', version: '1.0.0' }, { capabilities: { tools: { listChanged: true }, prompts: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: [
      {
        name: 'review',
        description: 'Review a file.\nMore about it.',
        arguments: [
          { name: 'file', description: 'The file to review', required: true },
          { name: 'focus', description: 'What to look at' },
        ],
      },
    ],
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    if (request.params.name !== 'review') throw new Error(`no prompt ${request.params.name}`);
    const args = request.params.arguments ?? {};
    return { messages: [{ role: 'user', content: { type: 'text', text: `Review ${args.file} with a focus on ${args.focus ?? 'everything'}.` } }] };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const args = request.params.arguments ?? {};
    switch (request.params.name) {
      case 'echo':
        return { content: [{ type: 'text', text: `echo: ${String(args.text)}` }] };
      case 'image':
        return {
          content: [
            { type: 'text', text: 'a pixel' },
            { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
          ],
        };
      case 'resource':
        return {
          content: [
            { type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'the notes' } },
            { type: 'resource_link', uri: 'https://example.invalid/doc', name: 'doc', description: 'a document' },
          ],
        };
      case 'structured':
        return { content: [], structuredContent: { n: args.n, squared: args.n * args.n } };
      case 'slow': {
        const token = request.params._meta?.progressToken;
        for (let i = 1; i <= args.steps; i++) {
          if (extra.signal.aborted) return { content: [{ type: 'text', text: 'cancelled' }] };
          await new Promise((r) => setTimeout(r, args.ms ?? 50));
          if (token !== undefined)
            await extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: i, total: args.steps, message: `step ${i}` },
            });
        }
        return { content: [{ type: 'text', text: `done after ${String(args.steps)} steps` }] };
      }
      case 'fail':
        return { content: [{ type: 'text', text: 'it went wrong' }], isError: true };
      case 'big':
        return { content: [{ type: 'text', text: 'x'.repeat(150_000) }] };
      case 'crash':
        process.stderr.write('about to crash\n');
        setTimeout(() => process.exit(7), 10);
        return await new Promise(() => {});
      case 'add_tool':
        if (!tools.some((t) => t.name === 'extra')) tools.push({ name: 'extra', description: 'Added later.', inputSchema: obj() });
        await server.sendToolListChanged();
        return { content: [{ type: 'text', text: 'added' }] };
      case 'extra':
        return { content: [{ type: 'text', text: 'extra ran' }] };
      default:
        return { content: [{ type: 'text', text: `ran ${request.params.name}` }] };
    }
  });
  return server;
}

const httpAt = process.argv.indexOf('--http');
if (httpAt >= 0) {
  const port = Number(process.argv[httpAt + 1] ?? 0);
  const http = createServer(async (req, res) => {
    if (req.url !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    // Stateless: one server and transport per request.
    const server = makeServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  http.listen(port, '127.0.0.1', () => process.stdout.write(`listening ${http.address().port}\n`));
} else {
  await makeServer().connect(new StdioServerTransport());
}
