import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { overridesFromEnv } from '#infra/settings/provider-config';
import { type CliIo, parseArgsOr } from '../cli/io';
import { ACP_USAGE } from '../cli/usage';
import { serveAcp } from './agent';
import { runSetup } from './setup';
import type { CoreSettings } from './workspaces';

/** The process's stdio for `deft acp`: JSON-RPC on stdin/stdout, everything else on stderr. */
export interface AcpIo extends CliIo {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  version: string;
}

/**
 * `deft acp [provider flags]`: an Agent Client Protocol agent on stdin/stdout until the client closes stdin.
 * Returns the exit code (2 for a usage error, before any protocol message).
 */
export async function runAcp(argv: string[], io: AcpIo): Promise<number> {
  const parsed = parseArgsOr(
    () =>
      parseArgs({
        args: argv,
        allowPositionals: false,
        strict: true,
        options: {
          provider: { type: 'string' },
          'base-url': { type: 'string' },
          model: { type: 'string' },
          'api-key': { type: 'string' },
          sandbox: { type: 'string' },
          'mcp-config': { type: 'string', multiple: true },
          setup: { type: 'boolean', default: false },
          help: { type: 'boolean', short: 'h', default: false },
        },
      }),
    ACP_USAGE,
    io,
  );
  if (parsed === 2) return 2;
  const { values } = parsed;
  if (values.help) {
    io.stderr(`${ACP_USAGE}\n`);
    return 0;
  }
  const usage = (message: string) => {
    io.stderr(`deft: ${message}\n\n${ACP_USAGE}\n`);
    return 2;
  };
  if (values.provider !== undefined && values.provider !== 'openai' && values.provider !== 'anthropic') return usage('--provider must be openai or anthropic');
  if (values.sandbox !== undefined && values.sandbox !== 'on' && values.sandbox !== 'off') return usage('--sandbox must be on or off');
  if (values['base-url'] !== undefined && !/^https?:\/\//i.test(values['base-url'])) return usage('--base-url must start with http:// or https://');
  const mcpConfigs = (values['mcp-config'] ?? []).map((file) => resolve(io.cwd, file));
  for (const file of mcpConfigs) if (!existsSync(file) || !statSync(file).isFile()) return usage(`--mcp-config ${file} is not a file`);

  const providerOverrides = overridesFromEnv(io.env);
  if (values.provider) providerOverrides.kind = values.provider;
  if (values['base-url']) providerOverrides.baseUrl = values['base-url'];
  if (values.model) providerOverrides.model = values.model;
  if (values['api-key']) providerOverrides.apiKey = values['api-key'];

  const settings: CoreSettings = {
    env: io.env,
    providerOverrides,
    mcpConfigs,
    stderr: io.stderr,
    version: io.version,
    ...(values.sandbox ? { sandbox: values.sandbox } : {}),
    ...(io.coreOptions ? { coreOptions: io.coreOptions } : {}),
  };
  // ACP's terminal authentication: the editor runs this in a terminal, not as the agent.
  if (values.setup) return runSetup({ input: io.input, output: io.output }, settings);

  const stream = ndJsonStream(Writable.toWeb(io.output as Writable), Readable.toWeb(io.input as Readable) as ReadableStream<Uint8Array>);
  const { closed } = serveAcp(stream, settings);
  await closed;
  return 0;
}
