import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Environment } from '#contract/environment';
import { join } from 'node:path';
import { z } from 'zod';
import { enabledPluginParts } from '#infra/plugins/enabled';
import { expandDeep } from './expand';
import { builtOnce } from '#protocol/helpers/built-once';

/**
 * The servers' formats, built the first time an entry is checked (serverSchemas): a run with no MCP server to read
 * (the CLI's text turn) never builds them.
 */
const buildServerSchemas = () => {
  const StringMap = z.record(z.string(), z.string());
  const Common = {
    /** Keep this server's tool schemas out of the request until the model selects them. */
    defer: z.boolean().optional(),
    /** Per-call timeout in seconds (default 600). */
    timeout: z.number().positive().max(86_400).optional(),
    /** Another agent's way of switching a server off; honoured here too. */
    disabled: z.boolean().optional(),
  };

  /** A server started as a child process speaking MCP on stdin/stdout. */
  const StdioServer = z.looseObject({
    type: z.literal('stdio').optional(),
    command: z.string().min(1, 'command is empty'),
    args: z.array(z.string()).optional(),
    env: StringMap.optional(),
    cwd: z.string().optional(),
    ...Common,
  });

  /** A remote server: Streamable HTTP (falling back to the older HTTP+SSE), or SSE only. */
  const RemoteServer = z.looseObject({
    type: z.enum(['http', 'streamable-http', 'sse']).optional(),
    url: z.url({ protocol: /^https?$/, error: 'url must be an http:// or https:// address' }),
    headers: StringMap.optional(),
    ...Common,
  });

  return { StdioServer, RemoteServer, ServerConfig: z.union([StdioServer, RemoteServer]) };
};
type ServerSchemas = ReturnType<typeof buildServerSchemas>;
/** A server's definition as the config files write it: a stdio server or a remote one. */
export const serverSchemas: () => ServerSchemas = builtOnce(buildServerSchemas);
export type ServerConfig = z.infer<ServerSchemas['ServerConfig']>;
export type StdioConfig = z.infer<ServerSchemas['StdioServer']>;
export type RemoteConfig = z.infer<ServerSchemas['RemoteServer']>;

export const isStdio = (config: ServerConfig): config is StdioConfig => 'command' in config && typeof config.command === 'string';

/** Where a definition came from: the user's file, the workspace's own files, or `deft run --mcp-config`. */
export type ServerSource = 'user' | 'project' | 'cli';

/** One server as configured, its variables expanded. */
export interface ServerDefinition {
  name: string;
  source: ServerSource;
  file: string;
  config: ServerConfig;
  /** Identifies the definition as written (command, args, env, cwd, url, headers): a changed one asks again. */
  fingerprint: string;
  /** Variables it uses that are not set. */
  missing: string[];
  /** Every environment variable its definition reads (shown when a workspace server asks for approval). */
  variables: string[];
  /** The definition as written, before expansion (what the settings page shows). */
  written: ServerConfig;
}

export interface ConfigProblem {
  file: string;
  message: string;
}

export interface McpConfig {
  servers: ServerDefinition[];
  problems: ConfigProblem[];
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** A file of servers; `servers` when they are already read (an enabled plugin's, `${CLAUDE_PLUGIN_ROOT}` expanded). */
export interface ConfigFile {
  file: string;
  source: ServerSource;
  /** Its servers as already read (a plugin's `.mcp.json`, its paths expanded). */
  servers?: Record<string, unknown>;
  /** The machine it is read on, when not this one (a remote folder's own file). */
  environment?: Environment;
}

/** The files, in the order a name found earlier wins: `--mcp-config` files, the user's, then the workspace's. */
export function configFiles(options: {
  home: string;
  workspace: string;
  extra?: readonly string[];
  /** The workspace's machine: a remote folder's own files are read there. */
  environment?: Environment;
}): ConfigFile[] {
  const there = options.environment && options.environment.kind !== 'local' ? { environment: options.environment } : {};
  return [
    ...(options.extra ?? []).map((file) => ({ file, source: 'cli' as const })),
    { file: join(options.home, 'mcp.json'), source: 'user' as const },
    { file: join(options.workspace, '.deft', 'mcp.json'), source: 'project' as const, ...there },
    { file: join(options.workspace, '.mcp.json'), source: 'project' as const, ...there },
  ];
}

/**
 * Read every MCP file. A missing file is nothing; a broken file or entry is a problem shown to the user
 * and never stops the others. A name defined twice keeps its first definition: a workspace cannot
 * replace a server the user defined (and the rules written for it).
 */
export async function loadMcpConfig(files: readonly ConfigFile[], env: Readonly<Record<string, string | undefined>>): Promise<McpConfig> {
  const servers: ServerDefinition[] = [];
  const problems: ConfigProblem[] = [];
  for (const { file, source, environment, servers: given } of files) {
    if (given) {
      add(given, file, source);
      continue;
    }
    let text: string;
    try {
      text = environment ? await readThere(environment, file) : await readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || source === 'cli')
        problems.push({ file, message: `cannot be read: ${(error as Error).message}` });
      continue;
    }
    const parsed = parseMcpFile(text);
    if (!parsed.ok) {
      problems.push({ file, message: parsed.message });
      continue;
    }
    add(parsed.servers, file, source);
  }
  return { servers, problems };

  function add(found: Record<string, unknown>, file: string, source: ServerSource): void {
    for (const [name, entry] of Object.entries(found)) {
      const taken = servers.find((s) => s.name === name);
      if (taken) {
        problems.push({ file, message: `server "${name}" is ignored: it is already defined in ${taken.file}` });
        continue;
      }
      const checked = checkEntry(name, entry);
      if (!checked.ok) {
        problems.push({ file, message: checked.message });
        continue;
      }
      const missing = new Set<string>();
      // A workspace's own files never get Deft's own variables (its API key among them).
      const visible = source === 'project' ? withoutDeftVariables(env) : env;
      const config = expandDeep(checked.config, visible, missing);
      const variables = [...new Set([...JSON.stringify(checked.config).matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!))];
      servers.push({ name, source, file, config, written: checked.config, fingerprint: fingerprintOf(checked.config), missing: [...missing], variables });
    }
  }
}

/**
 * `files` followed by the servers of the enabled plugins, as the user's own (installing a plugin is the user's
 * act of trust in it: its servers start like the user's, in a neutral folder). Broken plugins are problems.
 */
export async function withPluginServers(home: string, files: readonly ConfigFile[]): Promise<{ files: ConfigFile[]; problems: ConfigProblem[] }> {
  const { plugins, problems } = await enabledPluginParts(home);
  const more = plugins.flatMap((plugin) => plugin.mcp.map(({ file, servers }) => ({ file, source: 'user' as const, servers })));
  return { files: [...files, ...more], problems };
}

/** A remote workspace's MCP file, read there: a regular file of at most 1 MiB (a FIFO would block the read). */
async function readThere(environment: Environment, file: string): Promise<string> {
  const info = await environment.stat(file);
  if (!info.isFile()) throw new Error('it is not a regular file');
  if (info.size > 1024 * 1024) throw new Error('it is larger than 1 MiB');
  return environment.readText(file);
}

/** The `mcpServers` object of a file's text, or why it cannot be used. */
export function parseMcpFile(text: string): { ok: true; servers: Record<string, unknown> } | { ok: false; message: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { ok: false, message: `is not valid JSON: ${(error as Error).message}` };
  }
  const servers = (raw as { mcpServers?: unknown } | null)?.mcpServers;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, message: 'must be a JSON object with "mcpServers"' };
  if (servers === undefined) return { ok: true, servers: {} };
  if (!servers || typeof servers !== 'object' || Array.isArray(servers)) return { ok: false, message: '"mcpServers" must be an object of servers by name' };
  return { ok: true, servers: servers as Record<string, unknown> };
}

/** One entry checked against the common format. */
export function checkEntry(name: string, entry: unknown): { ok: true; config: ServerConfig } | { ok: false; message: string } {
  if (!NAME.test(name)) return { ok: false, message: `server name "${name}" may use only letters, digits, "_", "-" and "." (at most 64)` };
  const { ServerConfig, StdioServer, RemoteServer } = serverSchemas();
  const parsed = ServerConfig.safeParse(entry);
  if (parsed.success) return { ok: true, config: parsed.data };
  const isObject = entry && typeof entry === 'object';
  const shape =
    isObject && 'url' in entry ? 'a remote server ({"type": "http"|"sse", "url", "headers"})' : 'a stdio server ({"command", "args", "env", "cwd"})';
  const detail =
    isObject && !('url' in entry) && !('command' in entry)
      ? 'it has neither "command" nor "url"'
      : isObject && 'url' in entry
        ? describeIssues(RemoteServer, entry)
        : describeIssues(StdioServer, entry);
  return { ok: false, message: `server "${name}" is not ${shape}: ${detail}` };
}

function describeIssues(schema: z.ZodType, entry: unknown): string {
  const result = schema.safeParse(entry);
  if (result.success) return 'invalid';
  return result.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

/** A stable hash of what decides what runs or where calls go (as written, before expansion). */
export function fingerprintOf(config: ServerConfig): string {
  const essential = isStdio(config)
    ? { command: config.command, args: config.args ?? [], env: sorted(config.env), cwd: config.cwd ?? null }
    : { type: config.type ?? 'http', url: config.url, headers: sorted(config.headers) };
  return createHash('sha256').update(JSON.stringify(essential)).digest('hex').slice(0, 32);
}

function sorted(map: Record<string, string> | undefined): Array<[string, string]> {
  return Object.entries(map ?? {}).sort(([a], [b]) => a.localeCompare(b));
}

function withoutDeftVariables(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('DEFT_')));
}
