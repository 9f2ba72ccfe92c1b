import { StringDecoder } from 'node:string_decoder';
import { AnsiStripper } from '#protocol/helpers/terminal-text';
import { BACKGROUND_DEFAULT_TIMEOUT_S } from '../../process-tasks';
import { jobIsWaiting } from '#infra/processes/process-table';
import type { ShellSession } from '../../shell-session';
import type { ShellJob } from '../../shell-job';
import type { ToolResult, ToolRunContext } from '#contract/tool';
import { CommandError } from '#contract/errors';
import { TaskLimitError } from '#contract/tasks';
import { finishedResult, movedToBackgroundResult } from './results';

/** Live output reaches the UI in batches this often. */
const FLUSH_MS = 80;
/** Live output per call is capped (the log keeps everything). */
const LIVE_LIMIT_CHARS = 1024 * 1024;
/** How long an interrupted call waits for its process tree before answering (the kill carries on). */
const INTERRUPT_WAIT_MS = 1_500;

export interface ForegroundOptions {
  timeoutSec: number;
  description: string;
  /** Background tasks are on: a timeout (or the user) moves the command to the background; otherwise a timeout stops it. */
  background?: boolean;
  /** No output for this long, with every process asleep, counts as waiting. */
  quietAfterMs?: number;
}

type Ending = { kind: 'done' } | { kind: 'timeout' } | { kind: 'abort' } | { kind: 'stop' } | { kind: 'background' };

/** Stream the command's output to its card live, and batch it. */
function streamLive(job: ShellJob, ctx: ToolRunContext): () => void {
  const decoder = new StringDecoder('utf8');
  const stripper = new AnsiStripper();
  let pending = '';
  let sent = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    timer = undefined;
    if (!pending) return;
    let text = pending;
    pending = '';
    if (sent + text.length > LIVE_LIMIT_CHARS)
      text = `${text.slice(0, Math.max(0, LIVE_LIMIT_CHARS - sent))}\n[live output stops here (over 1 MiB); the full log is ${job.logPath}]\n`;
    sent += text.length;
    ctx.onUpdate({ kind: 'output', text });
  };
  const unsubscribe = job.onOutput((chunk) => {
    if (sent >= LIVE_LIMIT_CHARS) return;
    pending += stripper.push(decoder.write(chunk));
    timer ??= setTimeout(flush, FLUSH_MS);
  });
  return () => {
    unsubscribe();
    clearTimeout(timer);
    if (sent < LIVE_LIMIT_CHARS) pending += stripper.push(decoder.end()) + stripper.flush();
    flush();
  };
}

/**
 * Run a foreground command for a Bash call: stream its output live, report when it goes quiet and
 * waits, and end in one of five ways — it finishes; its timeout moves it to the background; the turn
 * is cancelled (tree killed); the user stops it from its card; or the user sends it to the background.
 */
export async function runForeground(job: ShellJob, shell: ShellSession, ctx: ToolRunContext, options: ForegroundOptions): Promise<ToolResult> {
  const stopLive = streamLive(job, ctx);
  let settle!: (ending: Ending) => void;
  const ending = new Promise<Ending>((resolve) => (settle = resolve));
  void job.done.then(() => settle({ kind: 'done' }));
  const timer = setTimeout(() => settle({ kind: 'timeout' }), options.timeoutSec * 1000);
  const onAbort = () => settle({ kind: 'abort' });
  if (ctx.signal.aborted) onAbort();
  ctx.signal.addEventListener('abort', onAbort, { once: true });

  const command = {
    callId: ctx.callId,
    job,
    activity: null as null | { callId: string; taskId: string; waiting: boolean; quietSince: number },
    stopOrBackground: async (action: 'stop' | 'background') => {
      if (action === 'background' && options.background === false)
        throw new CommandError(
          'unsupported',
          'Background tasks are off in this session, so this command cannot move to the background. Stop it, or wait for it.',
        );
      settle({ kind: action });
      return action === 'background' ? job.id : undefined;
    },
  };
  shell.foreground.set(ctx.callId, command);
  const quietAfter = options.quietAfterMs ?? 5_000;
  let checking = false;
  const watch = setInterval(
    () => {
      if (checking || !job.running || job.pid === undefined) return;
      const quiet = Date.now() - job.lastOutputAt >= quietAfter;
      if (!quiet) {
        if (command.activity) {
          shell.emitActivity({ ...command.activity, waiting: false, quietSince: job.lastOutputAt });
          command.activity = null;
        }
        return;
      }
      checking = true;
      void jobIsWaiting({ pid: job.pid })
        .then((waiting) => {
          if (!job.running || shell.foreground.get(ctx.callId) !== command) return;
          if (waiting && !command.activity) {
            command.activity = { callId: ctx.callId, taskId: job.id, waiting: true, quietSince: job.lastOutputAt };
            shell.emitActivity(command.activity);
          } else if (!waiting && command.activity) {
            shell.emitActivity({ ...command.activity, waiting: false });
            command.activity = null;
          }
        })
        .finally(() => (checking = false));
    },
    Math.min(1_000, quietAfter),
  );

  const end = await ending;
  clearTimeout(timer);
  clearInterval(watch);
  ctx.signal.removeEventListener('abort', onAbort);
  shell.foreground.delete(ctx.callId);
  if (command.activity) shell.emitActivity({ ...command.activity, waiting: false });

  if (end.kind === 'timeout' && options.background === false) {
    const outcome = await job.stop('timed_out');
    stopLive();
    return finishedResult(job, outcome);
  }
  switch (end.kind) {
    case 'timeout':
    case 'background': {
      // The session runs as many background tasks as it may: the command is stopped rather than moved, and the model told why.
      const release = await shell.tasks.reserve().catch((error: unknown) => {
        if (error instanceof TaskLimitError) return error;
        throw error;
      });
      if (release instanceof TaskLimitError) {
        const outcome = await job.stop(end.kind === 'timeout' ? 'timed_out' : 'killed');
        stopLive();
        const result = finishedResult(job, outcome);
        return { ...result, isError: true, note: `${result.note ? `${result.note}\n` : ''}It could not move to the background: ${release.message}` };
      }
      stopLive();
      const task = shell.processes.adopt(job, options.description, BACKGROUND_DEFAULT_TIMEOUT_S);
      release();
      return movedToBackgroundResult(job, task, end.kind === 'timeout' ? 'timeout' : 'user', options.timeoutSec);
    }
    case 'abort': {
      const stopping = job.stop('interrupted');
      await Promise.race([stopping, new Promise((resolve) => setTimeout(resolve, INTERRUPT_WAIT_MS))]);
      stopLive();
      return {
        ...finishedResult(job, job.outcome ?? { reason: 'interrupted', exitCode: null, signal: null, endedAt: Date.now(), outputBytes: job.outputBytes }),
        isError: true,
      };
    }
    case 'stop':
    case 'done': {
      const outcome = await job.stop('killed');
      stopLive();
      return finishedResult(job, outcome);
    }
  }
}
