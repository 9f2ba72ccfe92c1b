import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { terminalText } from '#protocol/helpers/terminal-text';
import type { Environment, ExecProcess } from '#contract/environment';
import type { SandboxBlock } from '#contract/sandbox';
import { KILL_GRACE_MS } from '#infra/processes/kill-tree';
import { TASK_MARKER_VAR, commandEnv } from './shell';

/** A command that writes more than this is stopped: a runaway loop must not fill the disk. */
export const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
const HEAD_BYTES = 16 * 1024;
const TAIL_BYTES = 32 * 1024;

/** Why a job ended. `exited`: on its own (any exit code); the others: it was stopped. */
export type EndReason = 'exited' | 'killed' | 'interrupted' | 'timed_out' | 'output_limit' | 'spawn_error' | 'shutdown';

export interface JobOutcome {
  reason: EndReason;
  exitCode: number | null;
  signal: string | null;
  /** Why it could not start (spawn_error). */
  error?: string;
  endedAt: number;
  outputBytes: number;
}

/** How to start a job's process, as the session's sandbox planned it (contract/sandbox.ts SpawnPlan). */
export interface JobSpawn {
  file: string;
  args: string[];
  /** The complete environment. */
  env: Record<string, string>;
  sandboxed: boolean;
  release(): void;
  blocked(output?: string): SandboxBlock[];
}

export interface JobOptions {
  /** The machine the command runs on (its log stays on this one, in the session's folder). */
  environment: Environment;
  id: string;
  command: string;
  cwd: string;
  logPath: string;
  shell?: string;
  env?: NodeJS.ProcessEnv;
  /** Run this (the sandbox wrapper) instead of `shell -c command` with `env`. */
  spawn?: JobSpawn;
  maxOutputBytes?: number;
  /** The tool call it runs for (see `ExecRequest.toolCallId`). */
  callId?: string;
  killGraceMs?: number;
  now?: () => number;
}

/** Lines [from, to) of a text that came from stderr (0-based). */
export type LineRange = [from: number, to: number];

/** The output a model reads: all of it when small (`tail` empty), else its head and tail with the middle left in the log. */
export interface OutputExcerpt {
  head: string;
  tail: string;
  omittedBytes: number;
  /** Lines of `head` and of `tail` written to stderr (the window tints them). */
  stderr: { head: LineRange[]; tail: LineRange[] };
}

/** A piece of output as it arrived, and from which stream. */
interface Piece {
  buf: Buffer;
  err: boolean;
}

/** At most this many stderr line ranges are kept per part: beyond it the tint is dropped, never wrong. */
const MAX_STDERR_RANGES = 500;

const newlines = (text: string) => {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
};

/** Readable text of pieces (each stream's run cleaned on its own), and which of its lines came from stderr. */
function textOf(pieces: readonly Piece[]): { text: string; stderr: LineRange[] } {
  let text = '';
  let lines = 0;
  const stderr: LineRange[] = [];
  for (let i = 0; i < pieces.length; ) {
    const err = pieces[i]!.err;
    let j = i;
    while (j < pieces.length && pieces[j]!.err === err) j++;
    const run = terminalText(Buffer.concat(pieces.slice(i, j).map((p) => p.buf)).toString('utf8'));
    if (err && run) {
      const from = lines;
      const to = from + newlines(run.endsWith('\n') ? run.slice(0, -1) : run) + 1;
      const last = stderr.at(-1);
      if (last && last[1] >= from) last[1] = Math.max(last[1], to);
      else if (stderr.length < MAX_STDERR_RANGES) stderr.push([from, to]);
    }
    text += run;
    lines += newlines(run);
    i = j;
  }
  return { text, stderr };
}

/** Line ranges after the first `drop` lines are removed. */
const shiftRanges = (ranges: LineRange[], drop: number): LineRange[] =>
  ranges.filter(([, to]) => to > drop).map(([from, to]) => [Math.max(0, from - drop), to - drop]);

/**
 * One shell command in a process group (and session) of its own: stdin is /dev/null and there is no
 * controlling terminal, so nothing can wait for a person. stdout and stderr go, interleaved as they
 * arrive, to a log file; listeners see the same bytes live.
 */
export class ShellJob {
  readonly startedAt: number;
  pid: number | undefined;
  outputBytes = 0;
  lastOutputAt: number;
  outcome: JobOutcome | null = null;
  readonly done: Promise<JobOutcome>;
  private stopReason: EndReason | null = null;
  private stopping: Promise<void> | null = null;
  private process: ExecProcess | null = null;
  private readonly listeners = new Set<(chunk: Buffer, stream: 'stdout' | 'stderr') => void>();
  private small: Piece[] | null = [];
  private readonly head: Piece[] = [];
  private headBytes = 0;
  private readonly tail: Piece[] = [];
  private tailBytes = 0;
  private capped = false;
  private deadline: ReturnType<typeof setTimeout> | undefined;
  private readonly now: () => number;
  private readonly maxOutputBytes: number;

  private constructor(
    readonly options: JobOptions,
    run: (job: ShellJob) => Promise<JobOutcome>,
  ) {
    this.now = options.now ?? Date.now;
    this.maxOutputBytes = options.maxOutputBytes ?? MAX_OUTPUT_BYTES;
    this.startedAt = this.now();
    this.lastOutputAt = this.startedAt;
    this.done = run(this).then((outcome) => {
      this.outcome = outcome;
      clearTimeout(this.deadline);
      return outcome;
    });
  }

  get id(): string {
    return this.options.id;
  }
  get command(): string {
    return this.options.command;
  }
  get cwd(): string {
    return this.options.cwd;
  }
  get logPath(): string {
    return this.options.logPath;
  }
  get running(): boolean {
    return this.outcome === null;
  }
  /** It runs in the OS sandbox. */
  get sandboxed(): boolean {
    return this.options.spawn?.sandboxed ?? false;
  }

  /** What the sandbox refused it (connections, and writes its output reports as refused). */
  blocked(): SandboxBlock[] {
    if (!this.options.spawn) return [];
    const { head, tail } = this.excerpt();
    return this.options.spawn.blocked(`${head}\n${tail}`);
  }

  /** Start the command. Never throws: a command that cannot start ends at once with reason `spawn_error`. */
  static async start(options: JobOptions): Promise<ShellJob> {
    await mkdir(dirname(options.logPath), { recursive: true, mode: 0o700 });
    let ready!: () => void;
    const started = new Promise<void>((resolve) => (ready = resolve));
    const job = new ShellJob(options, (self) => self.run(ready));
    await started;
    return job;
  }

  /** Live output (raw bytes, as written to the log) and the stream it came from. Returns an unsubscribe function. */
  onOutput(listener: (chunk: Buffer, stream: 'stdout' | 'stderr') => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stop the whole process tree (SIGTERM, grace, SIGKILL). The first reason given wins. */
  stop(reason: Exclude<EndReason, 'exited' | 'spawn_error'>): Promise<JobOutcome> {
    if (!this.running) return this.done;
    this.stopReason ??= reason;
    if (!this.stopping && this.process && this.pid !== undefined) {
      this.stopping = this.process.kill(this.options.killGraceMs ?? KILL_GRACE_MS);
    }
    return this.done;
  }

  /** Call `onExpire` after `ms` unless the job has ended (null clears the deadline). */
  setDeadline(ms: number | null, onExpire: () => void): void {
    clearTimeout(this.deadline);
    this.deadline = undefined;
    if (ms === null || !this.running) return;
    this.deadline = setTimeout(() => {
      if (this.running) onExpire();
    }, ms);
    this.deadline.unref?.();
  }

  /** What the model reads: cleaned text, whole when small, otherwise head and tail. */
  excerpt(): OutputExcerpt {
    if (this.small) {
      const whole = textOf(this.small);
      return { head: whole.text, tail: '', omittedBytes: 0, stderr: { head: whole.stderr, tail: [] } };
    }
    // The last TAIL_BYTES of what is kept: the oldest piece is cut to fit.
    let extra = this.tailBytes - TAIL_BYTES;
    const pieces = this.tail.map((p) => {
      if (extra <= 0) return p;
      const cut = Math.min(extra, p.buf.length);
      extra -= cut;
      return { buf: p.buf.subarray(cut), err: p.err };
    });
    const tailBytes = Math.min(this.tailBytes, TAIL_BYTES);
    const omittedBytes = Math.max(0, this.outputBytes - this.headBytes - tailBytes);
    let { text: tail, stderr: tailErr } = textOf(pieces);
    const firstBreak = tail.indexOf('\n');
    // The tail starts mid-line (and maybe mid-character): show whole lines only.
    if (omittedBytes > 0 && firstBreak >= 0 && firstBreak < tail.length - 1) {
      tail = tail.slice(firstBreak + 1);
      tailErr = shiftRanges(tailErr, 1);
    }
    const head = textOf(this.head);
    return { head: head.text, tail, omittedBytes, stderr: { head: head.stderr, tail: tailErr } };
  }

  private keep(piece: Buffer, err: boolean): void {
    if (this.small) {
      this.small.push({ buf: piece, err });
      if (this.outputBytes > HEAD_BYTES + TAIL_BYTES) this.small = null;
    }
    if (this.headBytes < HEAD_BYTES) {
      const part = piece.subarray(0, HEAD_BYTES - this.headBytes);
      this.head.push({ buf: part, err });
      this.headBytes += part.length;
    }
    this.tail.push({ buf: piece, err });
    this.tailBytes += piece.length;
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.buf.length >= TAIL_BYTES) this.tailBytes -= this.tail.shift()!.buf.length;
  }

  private async run(ready: () => void): Promise<JobOutcome> {
    const shell = this.options.shell ?? this.options.environment.shell();
    const writer = createWriteStream(this.logPath, { flags: 'w', mode: 0o600, highWaterMark: 1024 * 1024 });
    const writerClosed = new Promise<void>((resolve) => {
      writer.once('close', resolve);
      writer.once('error', () => resolve());
    });
    const { spawn, environment } = this.options;
    const subprocess = (this.process = environment.exec({
      file: spawn?.file ?? shell,
      args: spawn?.args ?? ['-c', this.command],
      cwd: this.cwd,
      env: spawn?.env ?? (environment.kind === 'local' ? commandEnv(shell, this.id, this.options.env) : { [TASK_MARKER_VAR]: this.id }),
      marker: `${TASK_MARKER_VAR}=${this.id}`,
      ...(this.options.callId ? { toolCallId: this.options.callId } : {}),
    }));
    await subprocess.started;
    this.pid = subprocess.pid;
    const streams: Readable[] = [subprocess.stdout, subprocess.stderr];
    const onData = (chunk: Buffer, stream: 'stdout' | 'stderr') => {
      if (this.capped) return;
      let piece = chunk;
      const room = this.maxOutputBytes - this.outputBytes;
      if (piece.length >= room) {
        piece = piece.subarray(0, Math.max(0, room));
        this.capped = piece.length < chunk.length || room === 0;
      }
      if (piece.length) {
        this.outputBytes += piece.length;
        this.lastOutputAt = this.now();
        this.keep(piece, stream === 'stderr');
        if (!writer.write(piece)) {
          for (const s of streams) s.pause();
          writer.once('drain', () => {
            for (const s of streams) s.resume();
          });
        }
        for (const listener of this.listeners) listener(piece, stream);
      }
      if (this.capped) void this.stop('output_limit');
    };
    const onStdout = (chunk: Buffer) => onData(chunk, 'stdout');
    const onStderr = (chunk: Buffer) => onData(chunk, 'stderr');
    subprocess.stdout.on('data', onStdout);
    subprocess.stderr.on('data', onStderr);
    ready();
    const result = await subprocess.exit;
    subprocess.stdout.off('data', onStdout);
    subprocess.stderr.off('data', onStderr);
    writer.end();
    await writerClosed;
    await this.stopping;
    this.options.spawn?.release();
    if (result.error) return this.finish('spawn_error', null, null, startFailure(result.error, shell));
    return this.finish(this.stopReason ?? 'exited', result.code, result.signal);
  }

  private finish(reason: EndReason, exitCode: number | null, signal: string | null, error?: string): JobOutcome {
    return { reason, exitCode, signal, endedAt: this.now(), outputBytes: this.outputBytes, ...(error ? { error } : {}) };
  }
}

function startFailure(error: { code: string; message: string }, shell: string): string {
  if (error.code === 'ENOENT' && /was not found/.test(error.message)) return `The shell ${shell} was not found.`;
  return error.message || 'The command could not be started.';
}
