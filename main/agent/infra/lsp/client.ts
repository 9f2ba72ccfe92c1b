import { fileUri } from './uri';
import {
  CancellationTokenSource,
  type Diagnostic,
  type InitializeResult,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
  StreamMessageReader,
  StreamMessageWriter,
  createProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import type { ServerExit, ServerProcess, ServerStarter } from './process';
import type { ServerSpec } from './server-specs';
import { languageOf } from './languages';

/** The text of the last lines a server wrote to stderr, bounded. */
class Tail {
  private text = '';
  push(chunk: string): void {
    this.text = (this.text + chunk).slice(-8_192);
  }
  lines(count = 8): string {
    return this.text
      .split('\n')
      .map((l) => l.trimEnd())
      .filter(Boolean)
      .slice(-count)
      .join('\n');
  }
}

interface OpenDocument {
  uri: string;
  languageId: string;
  version: number;
  text: string;
  /** The publication count when this version was sent: what is published after it is about this text or later. */
  syncedAt: number;
}

interface FileDiagnostics {
  diagnostics: Diagnostic[];
  /** Which publication this was (counts every publication the client received). */
  seq: number;
  version?: number;
}

/** What a wait for a file's diagnostics gives back: the diagnostics, or null when the server said nothing in time. */
export type DiagnosticsWait = Diagnostic[] | null;

/** A diagnostic as tsserver words it (1-based line and offset). */
interface TsServerDiagnostic {
  start: { line: number; offset: number };
  end: { line: number; offset: number };
  text: string;
  code?: number;
  category?: string;
}
interface TsServerResponse {
  body?: TsServerDiagnostic[];
}

const TS_SEVERITY: Readonly<Record<string, 1 | 2 | 3 | 4>> = { error: 1, warning: 2, message: 3, suggestion: 4 };

function fromTsServer(d: TsServerDiagnostic): Diagnostic {
  return {
    range: { start: { line: d.start.line - 1, character: d.start.offset - 1 }, end: { line: d.end.line - 1, character: d.end.offset - 1 } },
    message: d.text,
    severity: TS_SEVERITY[d.category ?? 'error'] ?? 1,
    source: 'typescript',
    ...(d.code !== undefined ? { code: d.code } : {}),
  };
}

/** Settings the server asks for, by dotted section ("python.analysis"). */
function section(settings: Readonly<Record<string, unknown>> | undefined, name: string | undefined): unknown {
  if (!settings) return null;
  if (!name) return settings;
  let value: unknown = settings;
  for (const part of name.split('.')) {
    if (!value || typeof value !== 'object') return null;
    value = (value as Record<string, unknown>)[part];
  }
  return value ?? null;
}

/**
 * One running language server: its process, the JSON-RPC connection (vscode-languageserver-protocol), the documents
 * Deft keeps open in it and the diagnostics it published.
 */
export class LanguageClient {
  private connection: ProtocolConnection | null = null;
  private process: ServerProcess | null = null;
  private readonly documents = new Map<string, OpenDocument>();
  private readonly published = new Map<string, FileDiagnostics>();
  private readonly listeners = new Set<(uri: string) => void>();
  private seq = 0;
  private closed = false;
  private readonly stderr = new Tail();
  capabilities: InitializeResult['capabilities'] | null = null;
  /** Set once the process ended, for whatever reason. */
  exit: Promise<ServerExit> | null = null;
  sandboxed = false;

  constructor(
    readonly spec: ServerSpec,
    private readonly workspace: string,
    private readonly starter: ServerStarter,
  ) {}

  /** Start the process and initialize the server; rejects (with the server's stderr) when it cannot. */
  async start(timeoutMs = 60_000): Promise<void> {
    const proc = await this.starter(this.spec, this.workspace);
    this.process = proc;
    this.sandboxed = proc.sandboxed;
    this.exit = proc.exited;
    proc.stderr.setEncoding('utf8').on('data', (chunk: string) => this.stderr.push(chunk));
    const connection = createProtocolConnection(new StreamMessageReader(proc.stdout), new StreamMessageWriter(proc.stdin));
    this.connection = connection;
    connection.onNotification('textDocument/publishDiagnostics', (params: PublishDiagnosticsParams) => this.onDiagnostics(params));
    connection.onRequest('workspace/configuration', (params: { items: Array<{ section?: string }> }) =>
      params.items.map((item) => section(this.spec.settings, item.section)),
    );
    connection.onRequest('workspace/workspaceFolders', () => [{ uri: fileUri(this.workspace), name: 'workspace' }]);
    connection.onRequest('client/registerCapability', () => null);
    connection.onRequest('client/unregisterCapability', () => null);
    connection.onRequest('window/workDoneProgress/create', () => null);
    connection.onRequest('window/showMessageRequest', () => null);
    // What the server logs goes with its stderr: the last lines explain a crash.
    connection.onNotification('window/logMessage', (params: { type: number; message: string }) => {
      if (params.type <= 2 || process.env.DEFT_LSP_LOG) this.stderr.push(`${params.message}\n`);
    });
    connection.onError(() => {});
    connection.listen();
    void proc.exited.then(() => this.dispose());
    const init = connection.sendRequest<InitializeResult>('initialize', {
      // Servers exit when this process is gone — where Deft's pid names something there (see ServerProcess.clientPid).
      processId: proc.clientPid,
      clientInfo: { name: 'deft' },
      rootUri: fileUri(this.workspace),
      rootPath: this.workspace,
      workspaceFolders: [{ uri: fileUri(this.workspace), name: 'workspace' }],
      initializationOptions: this.spec.initializationOptions ?? {},
      capabilities: {
        general: { positionEncodings: ['utf-16'] },
        textDocument: {
          synchronization: { didSave: false, dynamicRegistration: false },
          publishDiagnostics: { versionSupport: true, relatedInformation: false },
          definition: { linkSupport: true },
          references: {},
          hover: { contentFormat: ['plaintext', 'markdown'] },
          documentSymbol: { hierarchicalDocumentSymbolSupport: true },
        },
        workspace: { configuration: true, workspaceFolders: true, symbol: {} },
      },
    });
    const exitError = ({ code, signal }: ServerExit) => new Error(`${this.spec.id} exited while starting (${signal ?? `code ${code}`})${this.stderrText()}`);
    const ended = proc.exited.then((how) => {
      throw exitError(how);
    });
    // The connection fails as the process ends: say how it ended rather than that the connection closed.
    const answered = init.catch(async (error: unknown) => {
      const how = await Promise.race([proc.exited, new Promise<null>((r) => setTimeout(() => r(null), 1_000))]);
      throw how ? exitError(how) : error;
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${this.spec.id} did not answer "initialize" within ${Math.round(timeoutMs / 1000)} s.`)), timeoutMs);
    });
    try {
      const result = await Promise.race([answered, ended, late]);
      this.capabilities = result.capabilities;
    } catch (error) {
      this.kill();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    await connection.sendNotification('initialized', {});
  }

  /** The server's last stderr lines, as a suffix for an error message. */
  stderrText(): string {
    const tail = this.stderr.lines();
    return tail ? `:\n${tail}` : '.';
  }

  get running(): boolean {
    return this.connection !== null && !this.closed;
  }

  get pid(): number | undefined {
    return this.process?.pid;
  }

  /** Whether the file is open in the server. */
  isOpen(path: string): boolean {
    return this.documents.has(fileUri(path));
  }

  /** The file's text as the server has it, when open. */
  textOf(path: string): string | undefined {
    return this.documents.get(fileUri(path))?.text;
  }

  /** Open the file with `text`, or send the new text when it is open; resolves to the document's version. */
  async sync(path: string, text: string): Promise<number> {
    const connection = this.live();
    const uri = fileUri(path);
    const open = this.documents.get(uri);
    if (open) {
      if (open.text === text) return open.version;
      open.version += 1;
      open.text = text;
      open.syncedAt = this.seq;
      await connection.sendNotification('textDocument/didChange', { textDocument: { uri, version: open.version }, contentChanges: [{ text }] });
      return open.version;
    }
    const languageId = languageOf(path) ?? this.spec.languages[0] ?? 'plaintext';
    this.documents.set(uri, { uri, languageId, version: 1, text, syncedAt: this.seq });
    await connection.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } });
    return 1;
  }

  /** Close a document Deft opened (its diagnostics are forgotten). */
  async close(path: string): Promise<void> {
    const uri = fileUri(path);
    if (!this.documents.delete(uri)) return;
    this.published.delete(uri);
    await this.connection?.sendNotification('textDocument/didClose', { textDocument: { uri } }).catch(() => {});
  }

  /** The diagnostics last published for a file (null when none were). */
  diagnosticsOf(path: string): Diagnostic[] | null {
    return this.published.get(fileUri(path))?.diagnostics ?? null;
  }

  /**
   * The file's diagnostics once the server has published for it after `mark` (and for `version`, when the server
   * says which version it checked) and then stayed quiet for `quietMs` — servers publish in parts (TypeScript's
   * syntax, then semantic errors). Null when nothing came before `deadline` (a time from Date.now()).
   */
  private diagnosticsAfter(path: string, mark: number, version: number, deadline: number, quietMs = 200): Promise<DiagnosticsWait> {
    const uri = fileUri(path);
    const fresh = () => {
      const entry = this.published.get(uri);
      if (!entry || entry.seq <= mark) return null;
      if (entry.version !== undefined && entry.version < version) return null;
      return entry;
    };
    return new Promise((resolve) => {
      let quiet: NodeJS.Timeout | undefined;
      const finish = (value: DiagnosticsWait) => {
        clearTimeout(quiet);
        clearTimeout(overall);
        this.listeners.delete(listener);
        resolve(value);
      };
      const settle = () => {
        const entry = fresh();
        if (!entry) return;
        clearTimeout(quiet);
        const left = deadline - Date.now();
        quiet = setTimeout(() => finish(fresh()?.diagnostics ?? null), Math.max(0, Math.min(quietMs, left)));
      };
      const listener = (changed: string) => {
        if (changed === uri) settle();
        if (changed === '') finish(fresh()?.diagnostics ?? null);
      };
      const overall = setTimeout(() => finish(fresh()?.diagnostics ?? null), Math.max(0, deadline - Date.now()));
      this.listeners.add(listener);
      if (this.closed) finish(null);
      else settle();
    });
  }

  /**
   * The file's diagnostics for the text last synced, asked for now: through tsserver or LSP's pull request where the
   * server can answer that way, else the first publication since that text was sent (see diagnosticsAfter). Null
   * when the file is not open or nothing came before `deadline`.
   */
  async currentDiagnostics(path: string, deadline: number): Promise<DiagnosticsWait> {
    const left = () => Math.max(1, deadline - Date.now());
    const uri = fileUri(path);
    const document = this.documents.get(uri);
    if (!document) return null;
    try {
      if (this.spec.pull === 'tsserver') {
        const ask = (command: string) =>
          this.request<TsServerResponse | undefined>(
            'workspace/executeCommand',
            { command: 'typescript.tsserverRequest', arguments: [command, { file: uri }] },
            left(),
          );
        const [syntactic, semantic] = await Promise.all([ask('syntacticDiagnosticsSync'), ask('semanticDiagnosticsSync')]);
        return [...(syntactic?.body ?? []), ...(semantic?.body ?? [])].map(fromTsServer);
      }
      if (this.capabilities?.diagnosticProvider) {
        const report = await this.request<{ kind: string; items?: Diagnostic[] }>('textDocument/diagnostic', { textDocument: { uri } }, left());
        if (report.kind === 'full') return report.items ?? [];
        return this.diagnosticsOf(path) ?? [];
      }
    } catch {
      return null;
    }
    return this.diagnosticsAfter(path, document.syncedAt, document.version, deadline);
  }

  /** A request to the server, given up on after `timeoutMs` or when `signal` aborts. */
  async request<T>(method: string, params: unknown, timeoutMs: number, signal?: AbortSignal): Promise<T> {
    const connection = this.live();
    const source = new CancellationTokenSource();
    let timer: NodeJS.Timeout | undefined;
    const onAbort = () => source.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await Promise.race([
        connection.sendRequest<T>(method, params, source.token),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            source.cancel();
            reject(new Error(`${this.spec.id} did not answer ${method} within ${Math.round(timeoutMs / 1000)} s.`));
          }, timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      source.dispose();
    }
  }

  /** Ask the server to shut down and exit; ends the process after `graceMs` if it does not. */
  async stop(graceMs = 2_000): Promise<void> {
    const connection = this.connection;
    const proc = this.process;
    if (!proc) return;
    if (connection && !this.closed) {
      const asked = (async () => {
        await connection.sendRequest('shutdown');
        await connection.sendNotification('exit');
      })().catch(() => {});
      await Promise.race([asked, new Promise((r) => setTimeout(r, graceMs))]);
    }
    await Promise.race([proc.exited, new Promise((r) => setTimeout(r, graceMs))]);
    proc.kill(graceMs);
    await proc.exited;
  }

  /** End the process at once (and what it started). */
  kill(): void {
    this.process?.kill(500);
  }

  private live(): ProtocolConnection {
    if (!this.connection || this.closed) throw new Error(`${this.spec.id} is not running.`);
    return this.connection;
  }

  private onDiagnostics(params: PublishDiagnosticsParams): void {
    if (!this.documents.has(params.uri) && !this.published.has(params.uri)) {
      // Files Deft did not open: kept too (workspace diagnostics), bounded.
      if (this.published.size > 5_000) return;
    }
    this.seq += 1;
    this.published.set(params.uri, {
      diagnostics: params.diagnostics,
      seq: this.seq,
      ...(params.version !== undefined && params.version !== null ? { version: params.version } : {}),
    });
    for (const listener of [...this.listeners]) listener(params.uri);
  }

  /** The connection ended: waiters get what they have. */
  private dispose(): void {
    if (this.closed) return;
    this.closed = true;
    for (const listener of [...this.listeners]) listener('');
    this.connection?.dispose();
  }

  /** Every file's published diagnostics (workspace view). */
  allDiagnostics(): Array<{ uri: string; diagnostics: Diagnostic[] }> {
    return [...this.published.entries()].map(([uri, entry]) => ({ uri, diagnostics: entry.diagnostics }));
  }
}
