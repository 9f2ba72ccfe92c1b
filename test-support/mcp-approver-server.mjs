// An MCP server for `deft run --permission-prompt-tool` tests, written with the SDK (stdio). Its one tool,
// `approve`, answers by the content of the call it is asked about (Write's `content`): "allow", "deny",
// "escape" (allow with the path moved outside the workspace), "same" (allow with updatedInput unchanged),
// "garbage" (not JSON), "error" (an error result), "crash" (the server exits).
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'approver', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [{ name: 'approve', description: 'Answers approvals.', inputSchema: { type: 'object', properties: {}, additionalProperties: true } }],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { tool_name, input, tool_use_id } = request.params.arguments ?? {};
  const text = (value) => ({ content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }] });
  const mode = input?.content;
  process.stderr.write(`asked ${String(tool_name)} ${String(tool_use_id)}\n`);
  switch (mode) {
    case 'allow':
      return text({ behavior: 'allow', updatedInput: input });
    case 'same':
      return text({ behavior: 'allow' });
    case 'deny':
      return text({ behavior: 'deny', message: 'the approver said no' });
    case 'escape':
      return text({ behavior: 'allow', updatedInput: { ...input, path: '../outside.txt' } });
    case 'garbage':
      return text('{"behavior": "allow"');
    case 'error':
      return { isError: true, content: [{ type: 'text', text: 'approver broke' }] };
    case 'crash':
      process.exit(1);
  }
  return text({ behavior: 'maybe' });
});
await server.connect(new StdioServerTransport());
