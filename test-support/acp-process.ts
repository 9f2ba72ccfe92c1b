import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import {
  type ClientCapabilities,
  type ClientConnection,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  type ReadTextFileRequest,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type WriteTextFileRequest,
  client,
  ndJsonStream,
} from '@agentclientprotocol/sdk';
import type { TestTerminals } from './acp-terminals';

const ROOT = resolve(import.meta.dirname, '..');
const TSX = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href;
const ENTRY = `const { main } = await import(${JSON.stringify(join(ROOT, 'main/host/cli/entry.ts'))}); await main(process.argv.slice(1));`;

/** What the test's editor does when the agent asks it something. */
export interface EditorHandlers {
  permission?: (request: RequestPermissionRequest) => Promise<RequestPermissionResponse>;
  readTextFile?: (request: ReadTextFileRequest) => Promise<{ content: string }>;
  writeTextFile?: (request: WriteTextFileRequest) => Promise<void>;
  /** A form to fill in (`elicitation/create`); without it the editor refuses such requests. */
  elicitation?: (request: CreateElicitationRequest) => Promise<CreateElicitationResponse>;
  /** The editor's terminals (`terminal/*`); without them the editor refuses such requests. */
  terminals?: TestTerminals;
}

/** `deft acp` as a process of its own, driven by the ACP SDK's client over its stdin/stdout. */
export interface AcpProcess {
  child: ChildProcessWithoutNullStreams;
  connection: ClientConnection;
  /** Every session/update received, in order. */
  updates: SessionNotification[];
  /** Every permission request received, in order. */
  permissions: RequestPermissionRequest[];
  stderr: () => string;
  /** Raw lines written to stdout (the protocol), for checks of what the agent said. */
  stdoutLines: () => string[];
  /** Close stdin and wait for the process to exit; killed after `timeoutMs`. */
  stop(timeoutMs?: number): Promise<number | null>;
}

export function startAcp(options: {
  cwd: string;
  env: Record<string, string>;
  args?: readonly string[];
  handlers?: EditorHandlers;
  capabilities?: ClientCapabilities;
}): AcpProcess {
  const child = spawn(
    process.execPath,
    [
      '--import',
      TSX,
      '--import',
      pathToFileURL(join(ROOT, 'scripts/raw-loader.mjs')).href,
      '--input-type=module',
      '-e',
      ENTRY,
      '--',
      'acp',
      ...(options.args ?? []),
    ],
    {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? options.cwd, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  const updates: SessionNotification[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const handlers = options.handlers ?? {};
  const terminals = () => {
    if (!handlers.terminals) throw new Error('this editor has no terminals');
    return handlers.terminals;
  };
  const app = client({ name: 'deft-test-editor' })
    .onNotification('session/update', ({ params }) => {
      updates.push(params);
    })
    .onRequest('session/request_permission', async ({ params }) => {
      permissions.push(params);
      if (!handlers.permission) return new Promise<never>(() => {}); // an editor that never answers
      return handlers.permission(params);
    })
    .onRequest('fs/read_text_file', async ({ params }) => {
      if (!handlers.readTextFile) throw new Error('this editor reads no files');
      return handlers.readTextFile(params);
    })
    .onRequest('elicitation/create', async ({ params }) => {
      if (!handlers.elicitation) throw new Error('this editor shows no forms');
      return handlers.elicitation(params);
    })
    .onRequest('terminal/create', async ({ params }) => terminals().create(params))
    .onRequest('terminal/output', async ({ params }) => terminals().output(params.terminalId))
    .onRequest('terminal/wait_for_exit', async ({ params }) => terminals().waitForExit(params.terminalId))
    .onRequest('terminal/kill', async ({ params }) => (terminals().kill(params.terminalId), {}))
    .onRequest('terminal/release', async ({ params }) => (terminals().release(params.terminalId), {}))
    .onRequest('fs/write_text_file', async ({ params }) => {
      if (!handlers.writeTextFile) throw new Error('this editor writes no files');
      await handlers.writeTextFile(params);
      return {};
    });
  const stdoutStream = new Readable({ read() {} });
  child.stdout.on('data', (chunk: Buffer) => stdoutStream.push(chunk));
  child.stdout.on('end', () => stdoutStream.push(null));
  const connection = app.connect(ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(stdoutStream) as ReadableStream<Uint8Array>));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return {
    child,
    connection,
    updates,
    permissions,
    stderr: () => stderr,
    stdoutLines: () => stdout.split('\n').filter(Boolean),
    async stop(timeoutMs = 20_000) {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      connection.close();
      return code;
    },
  };
}
