import { parseArgs } from 'node:util';
import { type ServerListing, decideServer, listServers } from '../../agent/capabilities/mcp/approvals';
import { deftHome } from '#infra/platform/home';
import { resolveWorkspace } from '../compose';
import { type CliIo, parseArgsOr } from './io';
import { MCP_USAGE } from './usage';

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      workspace: { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

const WHY: Record<string, string> = {
  untrusted: 'not started: this folder is not trusted',
  'needs-approval': 'waits for your approval: deft mcp approve',
  denied: 'denied: deft mcp approve',
  disabled: 'switched off',
};

function line(server: ServerListing): string {
  const state =
    server.gate === null
      ? server.source === 'project'
        ? 'approved'
        : 'yours: starts'
      : server.gate === 'needs-approval' && server.changedSinceAnswer
        ? 'changed since you answered: deft mcp approve'
        : (WHY[server.gate] ?? server.gate);
  const hint = state.endsWith('deft mcp approve') ? `${state} ${server.name}` : state;
  return `  ${server.name.padEnd(20)} ${server.source.padEnd(8)} ${hint}\n      ${server.target}  (${server.file})`;
}

/** `deft mcp list | approve NAME | deny NAME`. Returns the process exit code. */
export async function runMcpCli(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseArgsOr(() => parse(argv), MCP_USAGE, io);
  if (parsed === 2) return 2;
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${MCP_USAGE}\n`);
    return 0;
  }
  const [, action, name, ...rest] = positionals;
  const usage = (message: string) => {
    io.stderr(`deft: ${message}\n\n${MCP_USAGE}\n`);
    return 2;
  };
  if (action !== 'list' && action !== 'approve' && action !== 'deny')
    return usage(action ? `unknown mcp command "${action}"` : 'say what to do: list, approve NAME or deny NAME');
  if (action === 'list' ? name !== undefined : name === undefined || rest.length > 0)
    return usage(action === 'list' ? `unexpected argument "${name}"` : `give one server name: deft mcp ${action} NAME`);
  let workspace: string;
  try {
    workspace = resolveWorkspace(values.workspace ?? io.cwd);
  } catch (error) {
    return usage((error as Error).message);
  }
  const places = { home: io.coreOptions?.home ?? deftHome(io.env), workspace, env: io.env };
  try {
    if (action === 'list') {
      const { servers, problems, trusted } = await listServers(places);
      if (values.json) io.stdout(JSON.stringify({ workspace, trusted, servers, problems }, null, 2) + '\n');
      else {
        io.stdout(`MCP servers for ${workspace}${trusted ? '' : ' (this folder is not trusted: its own servers do not start)'}:\n`);
        io.stdout(servers.length ? `${servers.map(line).join('\n')}\n` : '  none\n');
      }
      for (const p of problems) io.stderr(`deft: warning: ${p.file}: ${p.message}\n`);
      return 0;
    }
    const approved = action === 'approve';
    const definition = await decideServer(places, name!, approved);
    io.stdout(
      `${approved ? 'Approved' : 'Denied'} MCP server "${definition.name}" of ${definition.file}, as defined now:\n${JSON.stringify(definition.written, null, 2)}\n`,
    );
    return 0;
  } catch (error) {
    const message = (error as Error).message;
    io.stderr(
      `deft: ${message}${message.startsWith('Trust this folder first') ? ' Trust it in the Deft window, or set "trusted": true for it in ~/.deft/trust.json.' : ''}\n`,
    );
    return 1;
  }
}
