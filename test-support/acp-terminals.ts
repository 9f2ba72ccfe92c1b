import { type ChildProcess, spawn } from 'node:child_process';
import type { CreateTerminalRequest, TerminalExitStatus } from '@agentclientprotocol/sdk';

interface Running {
  request: CreateTerminalRequest;
  child: ChildProcess;
  output: string;
  truncated: boolean;
  exit: Promise<TerminalExitStatus>;
  exitStatus: TerminalExitStatus | null;
  released: boolean;
}

/**
 * An editor's terminals, for tests: each `terminal/create` starts the command for real, with the editor's own
 * environment (`editorEnv` over this process's) plus what the request adds, as an editor does; output is kept (cut at
 * the front past the limit) and reported as ACP's `terminal/*` answers.
 */
export class TestTerminals {
  readonly created: CreateTerminalRequest[] = [];
  readonly killed: string[] = [];
  readonly released: string[] = [];
  private readonly running = new Map<string, Running>();

  constructor(private readonly editorEnv: Record<string, string> = {}) {}

  create(request: CreateTerminalRequest): { terminalId: string } {
    this.created.push(request);
    const terminalId = `term-${this.created.length}`;
    const env = { ...process.env, ...this.editorEnv, ...Object.fromEntries((request.env ?? []).map((v) => [v.name, v.value])) };
    const child = spawn(request.command, request.args ?? [], { cwd: request.cwd ?? undefined, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const run: Running = { request, child, output: '', truncated: false, exitStatus: null, released: false, exit: Promise.resolve({}) };
    const add = (chunk: Buffer) => {
      run.output += chunk.toString('utf8');
      const limit = request.outputByteLimit ?? Number.POSITIVE_INFINITY;
      if (Buffer.byteLength(run.output) > limit) {
        run.output = Buffer.from(run.output).subarray(-limit).toString('utf8');
        run.truncated = true;
      }
    };
    child.stdout.on('data', add);
    child.stderr.on('data', add);
    run.exit = new Promise((resolve) => {
      child.once('error', (error) => {
        add(Buffer.from(`${error.message}\n`));
        resolve((run.exitStatus = { exitCode: 127, signal: null }));
      });
      child.once('close', (code, signal) => resolve((run.exitStatus = { exitCode: code, signal })));
    });
    this.running.set(terminalId, run);
    return { terminalId };
  }

  output(terminalId: string) {
    const run = this.get(terminalId);
    return { output: run.output, truncated: run.truncated, exitStatus: run.exitStatus };
  }

  waitForExit(terminalId: string): Promise<TerminalExitStatus> {
    return this.get(terminalId).exit;
  }

  kill(terminalId: string): void {
    this.killed.push(terminalId);
    this.get(terminalId).child.kill('SIGTERM');
  }

  release(terminalId: string): void {
    const run = this.get(terminalId);
    this.released.push(terminalId);
    run.released = true;
    if (!run.exitStatus) run.child.kill('SIGKILL');
  }

  /** Stop whatever still runs (after a test). */
  close(): void {
    for (const run of this.running.values()) if (!run.exitStatus) run.child.kill('SIGKILL');
  }

  private get(terminalId: string): Running {
    const run = this.running.get(terminalId);
    if (!run || run.released) throw new Error(`no terminal ${terminalId}`);
    return run;
  }
}
