import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { RunningTask, TaskEnd } from '#contract/tasks';
import type { AgentOutcome } from './runner';

const TAIL_CHARS = 16 * 1024;
const NOTIFY_CHARS = 8_000;

/**
 * A sub-agent running in the background, as the session's task board drives it: its transcript goes to
 * the task's output log as it works (TaskOutput and the tasks panel read it), and its final answer is what
 * the model is told when it ends.
 */
export class AgentTask implements RunningTask {
  private text = '';
  private bytes = 0;
  private writes: Promise<void>;
  private readonly listeners = new Set<() => void>();
  readonly controller = new AbortController();
  readonly done: Promise<TaskEnd>;
  private resolveDone!: (end: TaskEnd) => void;
  private stopWhy: 'killed' | 'shutdown' | 'timed_out' | null = null;

  constructor(
    private readonly outputPath: string,
    private readonly agentId: string,
  ) {
    this.writes = mkdir(dirname(outputPath), { recursive: true }).then(
      () => undefined,
      () => undefined,
    );
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  get outputBytes(): number {
    return this.bytes;
  }

  write(chunk: string): void {
    if (!chunk) return;
    this.text = (this.text + chunk).slice(-TAIL_CHARS);
    this.bytes += Buffer.byteLength(chunk);
    this.writes = this.writes.then(() => appendFile(this.outputPath, chunk, { mode: 0o600 })).catch(() => {});
    for (const listener of this.listeners) listener();
  }

  tail(lines: number): string {
    return this.text
      .split('\n')
      .slice(-lines - 1)
      .join('\n')
      .trimEnd();
  }

  onOutput(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  stop(why: 'killed' | 'shutdown' | 'timed_out'): Promise<unknown> {
    this.stopWhy ??= why;
    this.controller.abort(new Error(why === 'timed_out' ? 'The sub-agent reached its time limit' : 'The sub-agent was stopped'));
    return this.done;
  }

  /** The sub-agent finished (or was stopped): record how, and hand the board its answer. */
  async finish(outcome: AgentOutcome): Promise<void> {
    this.write(`\n[${outcome.status}]${outcome.error ? ` ${outcome.error.message}` : ''}\n`);
    await this.writes;
    const answer =
      outcome.text.length > NOTIFY_CHARS
        ? `${outcome.text.slice(0, NOTIFY_CHARS)}\n[… the answer goes on; TaskOutput or Read output_path for all of it]`
        : outcome.text;
    const status =
      this.stopWhy === 'timed_out' || outcome.status === 'timed_out'
        ? 'timed_out'
        : this.stopWhy
          ? 'killed'
          : outcome.status === 'completed'
            ? 'completed'
            : outcome.status === 'cancelled'
              ? 'killed'
              : 'failed';
    const reason =
      status === 'completed'
        ? 'the sub-agent finished'
        : status === 'timed_out'
          ? `reached its time limit — resume it with Agent resume: "${this.agentId}"`
          : status === 'killed'
            ? 'stopped'
            : (outcome.error?.message ?? 'the sub-agent failed');
    this.resolveDone({
      status,
      reason,
      endedAt: Date.now(),
      outputBytes: this.bytes,
      tail: `agent_id: ${this.agentId}\n${answer ? `Final answer:\n${answer}` : 'It gave no final answer.'}`,
      ...(this.stopWhy === 'shutdown' ? { shutdown: true } : {}),
    });
  }
}
