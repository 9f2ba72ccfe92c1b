import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Environment, ExecProcess } from '#contract/environment';

export interface EnvironmentServerCommand {
  file: string;
  args: readonly string[];
  cwd: string;
  /** Added to the login environment there. */
  env: Record<string, string>;
}

/** A stopped server gets this long between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2_000;

/**
 * The MCP stdio transport over an Environment's process: a remote workspace's own server is started on its machine
 * (the SDK's StdioClientTransport can only spawn here). Newline-delimited JSON-RPC on the process's stdin/stdout, as
 * the SDK's; its stderr goes to `onStderr`. Closing ends the server's whole process tree there.
 */
export class EnvironmentStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private process: ExecProcess | null = null;
  private readonly buffer = new ReadBuffer();
  private closed = false;

  constructor(
    private readonly environment: Environment,
    private readonly command: EnvironmentServerCommand,
    private readonly onStderr: (text: string) => void = () => {},
  ) {}

  async start(): Promise<void> {
    if (this.process) throw new Error('EnvironmentStdioTransport already started');
    const child = this.environment.exec({ ...this.command, stdin: 'pipe' });
    this.process = child;
    child.stdout.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.buffer.readMessage();
        } catch (error) {
          this.onerror?.(error as Error);
          continue;
        }
        if (!message) break;
        this.onmessage?.(message);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => this.onStderr(chunk.toString('utf8')));
    child.stdin?.on('error', (error: Error) => this.onerror?.(error));
    void child.exit.then((exit) => {
      if (exit.error) this.onerror?.(new Error(`it could not be started on ${this.environment.label}: ${exit.error.message}`));
      this.finish();
    });
    await child.started;
    if (child.pid === undefined) {
      const exit = await child.exit;
      throw new Error(`it could not be started on ${this.environment.label}: ${exit.error?.message ?? 'no process'}`);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.process?.stdin;
    if (!stdin || this.closed) return Promise.reject(new Error('Not connected'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', () => resolve());
    });
  }

  async close(): Promise<void> {
    const child = this.process;
    if (child && !this.closed) {
      child.stdin?.end();
      await child.kill(KILL_GRACE_MS).catch(() => {});
    }
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.buffer.clear();
    this.onclose?.();
  }
}
