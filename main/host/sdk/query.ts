import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import type { SessionEvent } from '#protocol';

// deft/sdk: Deft's headless run for Node programs. One implementation with the CLI — `query` starts
// `deft run --input-format stream-json --output-format stream-json` and speaks its lines (docs/cli.md), so a
// script sees exactly the events a stream-json reader sees and answers approvals as stdin lines do.

/** The last line of a run: the `--output-format json` result object. */
export interface QueryResult {
  type: 'result';
  subtype: string;
  is_error: boolean;
  result: string;
  session_id: string;
  duration_ms: number;
  num_turns: number;
  usage?: Record<string, unknown>;
  total_cost_usd?: number;
  permission_denials?: Array<{ tool_name: string; tool_use_id: string; tool_input: unknown; message?: string }>;
  structured_output?: unknown;
  [key: string]: unknown;
}

/** A line the run could not take (`input.error`). */
export interface InputError {
  type: 'input.error';
  line: number;
  message: string;
}

/** What a query yields: the session's events, then its result. */
export type QueryMessage = SessionEvent | InputError | QueryResult;

export interface QueryOptions {
  /** The workspace (default: the current directory). */
  cwd?: string;
  /** More `deft run` flags, as on the command line: `['--model', 'm', '--permission-mode', 'accept-edits']`. */
  args?: readonly string[];
  /** The environment of the run (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** How to start Deft: a program and its first arguments (default: this package's `bin/deft.mjs` under this Node). */
  command?: readonly string[];
  /** Stops the run (as Ctrl-C does). */
  signal?: AbortSignal;
}

export interface Query extends AsyncIterable<QueryMessage> {
  /** Deliver a message into the running turn at its next step (the window's Steer). */
  steer(text: string): void;
  /** Queue a further prompt: it runs when the current turn ends (the window's Enter while a turn runs). */
  prompt(text: string): void;
  /** Answer an `approval.requested` event by its `requestId`. */
  answerApproval(requestId: string, decision: 'allow' | 'deny', options?: { scope?: 'once' | 'session'; message?: string }): void;
  /** Answer a `question.asked` event by its `requestId` (the answerQuestion command's answers), or dismiss it. */
  answerQuestion(requestId: string, answers: unknown[] | 'dismissed'): void;
  /** Stop the running turn. */
  interrupt(): void;
  /** Say nothing more will come: the run ends once its last turn is done. */
  end(): void;
  /** The result, once the run has ended. */
  readonly result: Promise<QueryResult>;
}

/** `bin/deft.mjs` of the package this file belongs to (the source's or the build's). */
function defaultCommand(): string[] {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const bin = join(dir, 'bin', 'deft.mjs');
    if (existsSync(bin)) return [process.execPath, bin];
  }
  throw new Error('deft/sdk: bin/deft.mjs was not found above this module; pass options.command.');
}

/**
 * Run a prompt with Deft's agent and iterate over what happens. The run stays open for steers, further prompts and
 * approval answers until the turns it was given are done (or `end()` is called); then the result comes last.
 *
 * ```ts
 * const run = query('Fix the failing test', { args: ['--permission-mode', 'accept-edits'] });
 * for await (const message of run) {
 *   if (message.type === 'approval.requested') run.answerApproval(message.requestId, 'allow');
 *   if (message.type === 'result') console.log(message.result);
 * }
 * ```
 */
export function query(prompt: string, options: QueryOptions = {}): Query {
  const [program, ...first] = options.command ?? defaultCommand();
  const child: ChildProcess = spawn(program!, [...first, 'run', '--input-format', 'stream-json', '--output-format', 'stream-json', ...(options.args ?? [])], {
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? process.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-8_000)));
  const stop = () => child.kill('SIGINT');
  options.signal?.addEventListener('abort', stop, { once: true });

  let ended = false;
  const send = (line: object) => {
    if (ended || !child.stdin!.writable) throw new Error('deft/sdk: this query has ended; start another one.');
    child.stdin!.write(`${JSON.stringify(line)}\n`);
  };
  const end = () => {
    if (ended) return;
    ended = true;
    child.stdin!.end();
  };
  // A broken pipe (the run is gone) is said by the result, not thrown from a write.
  child.stdin!.on('error', () => {});

  // Turns the run was asked for and has not finished: when none is left (and nothing waits for an answer), stdin
  // closes and the run ends. A turn Deft starts by itself (a background task's report) is not one of them.
  let owed = 1;
  let running = false;
  const asked = new Set<string>();
  const waiting = new Set<string>();
  const track = (message: QueryMessage) => {
    if (message.type === 'approval.requested' || message.type === 'question.asked') waiting.add(message.requestId);
    else if (message.type === 'approval.resolved' || message.type === 'question.answered') waiting.delete(message.requestId);
    else if (message.type === 'turn.started') {
      running = true;
      if (message.origin === 'user' || message.origin === 'skill') asked.add(message.turnId);
    } else if (message.type === 'turn.ended') {
      running = false;
      if (asked.delete(message.turnId)) owed = Math.max(0, owed - 1);
      if (owed === 0 && waiting.size === 0) end();
    }
  };

  let settle!: { resolve: (r: QueryResult) => void; reject: (e: Error) => void };
  const result = new Promise<QueryResult>((resolve, reject) => (settle = { resolve, reject }));
  result.catch(() => {});
  // Iterated from now on: lines (and the end) that come before the caller starts reading are kept, not lost.
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  let last: QueryResult | null = null;
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  child.once('error', (error) => settle.reject(new Error(`deft/sdk: could not start Deft: ${error.message}`)));

  async function* messages(): AsyncGenerator<QueryMessage> {
    for await (const line of { [Symbol.asyncIterator]: () => lines }) {
      if (!line.trim()) continue;
      let message: QueryMessage;
      try {
        message = JSON.parse(line) as QueryMessage;
      } catch {
        continue;
      }
      if (message.type === 'result') last = message;
      track(message);
      yield message;
    }
    const code = await exited;
    options.signal?.removeEventListener('abort', stop);
    if (last) settle.resolve(last);
    else settle.reject(new Error(`deft/sdk: the run ended (exit ${code}) without a result${stderr.trim() ? `: ${stderr.trim()}` : ''}`));
  }

  send({ type: 'user', message: { role: 'user', content: prompt } });
  const iterator = messages();
  return {
    [Symbol.asyncIterator]: () => iterator,
    steer: (text) => {
      // With no turn running, a steer starts one.
      if (!running) owed++;
      send({ type: 'steer', text });
    },
    prompt: (text) => {
      owed++;
      send({ type: 'user', message: { role: 'user', content: text } });
    },
    answerApproval: (requestId, decision, extra = {}) => send({ type: 'approval', id: requestId, decision, ...extra }),
    answerQuestion: (requestId, answers) =>
      send(answers === 'dismissed' ? { type: 'question', id: requestId, dismissed: true } : { type: 'question', id: requestId, answers }),
    interrupt: () => send({ type: 'interrupt' }),
    end,
    result,
  };
}
