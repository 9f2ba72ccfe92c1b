import type { ToolResultDisplay } from '#protocol';
import type { SandboxBlock } from '#contract/sandbox';
import type { TaskRecord } from '#contract/tasks';
import { formatBytes, formatDuration } from '#protocol/helpers/units';
import type { JobOutcome, LineRange, ShellJob } from '../../shell-job';
import type { ToolResult } from '#contract/tool';
import { capText } from '#contract/output-limits';

/**
 * The output as the model reads it: whole when short, else beginning and end with a pointer to the full
 * log; and which of its lines came from stderr (for the window).
 */
export function outputFor(job: ShellJob): { text: string; truncated: boolean; stderrLines: LineRange[] } {
  const { head, tail, omittedBytes, stderr } = job.excerpt();
  let body = head;
  let stderrLines = stderr.head;
  if (tail) {
    const gap = omittedBytes > 0 ? `${formatBytes(omittedBytes)} omitted` : 'output continues';
    const headPart = `${head}${head.endsWith('\n') ? '' : '\n'}`;
    body = `${headPart}[... ${gap}: the full output (${formatBytes(job.outputBytes)}) is in ${job.logPath}; Read it with line_offset and n_lines, or grep it ...]\n${tail}`;
    // The tail starts after the head's lines and the marker line.
    const offset = headPart.split('\n').length;
    stderrLines = [...stderr.head, ...stderr.tail.map(([from, to]): LineRange => [from + offset, to + offset])];
  }
  const capped = capText(body);
  let text = capped.text;
  if (capped.longLines)
    text += `${text.endsWith('\n') ? '' : '\n'}[${capped.longLines} long line(s) were cut at 2,000 characters; the full output is in ${job.logPath}]`;
  return { text, truncated: Boolean(tail) || capped.truncated, stderrLines };
}

/** The closing line: how the command ended. */
export function endLine(outcome: JobOutcome, job: ShellJob): string {
  const ran = formatDuration(outcome.endedAt - job.startedAt);
  switch (outcome.reason) {
    case 'exited':
      if (outcome.exitCode === 0) return 'Command executed successfully.';
      if (outcome.exitCode !== null) return `Command failed with exit code: ${outcome.exitCode}.`;
      return `Command was terminated by signal ${outcome.signal ?? 'unknown'}.`;
    case 'output_limit':
      return 'Command stopped: output limit exceeded (it wrote more than 16 MiB). Send its output to a file (e.g. `cmd > out.log 2>&1`) and search that file.';
    case 'spawn_error':
      return `Command could not start: ${outcome.error ?? 'unknown error'}`;
    case 'killed':
      return `Command stopped by the user after ${ran}. Do not run it again unless the user asks.`;
    case 'interrupted':
    case 'shutdown':
      return 'Interrupted by user.';
    case 'timed_out':
      return `Command killed by timeout (${ran}).`;
  }
}

/** What the sandbox refused, for the model: each block and how the user can allow it. */
export function blockedNote(blocked: readonly SandboxBlock[]): string {
  if (!blocked.length) return '';
  const lines = blocked.map((b) => `- ${b.kind === 'network' ? 'connection to' : b.kind} ${b.target}: ${b.hint}`);
  return `\nDeft's OS sandbox refused:\n${lines.join('\n')}\nDo not try to get around it; tell the user what was refused if it matters.`;
}

/** The result of a foreground command that ended while the call waited. */
export function finishedResult(job: ShellJob, outcome: JobOutcome): ToolResult {
  const { text, truncated, stderrLines } = outputFor(job);
  const line = endLine(outcome, job);
  const ok = outcome.reason === 'exited' && outcome.exitCode === 0;
  const blocked = job.blocked();
  const display: ToolResultDisplay = {
    kind: 'command_output',
    exitCode: outcome.exitCode,
    output: `${text}${text && !text.endsWith('\n') ? '\n' : ''}${ok ? '' : line}`.trimEnd(),
    ...(truncated ? { truncated } : {}),
    ...(blocked.length ? { blocked } : {}),
    ...(stderrLines.length ? { stderrLines } : {}),
    logId: job.id,
  };
  return { output: `${text}${text && !text.endsWith('\n') ? '\n' : ''}${line}${blockedNote(blocked)}`, isError: !ok, truncated: true, display };
}

function taskFacts(task: TaskRecord): string {
  return [
    `task_id: ${task.id}`,
    ...(task.pid !== undefined ? [`pid: ${task.pid}`] : []),
    `description: ${task.description}`,
    `status: ${task.status}`,
    `time_limit: ${task.timeoutSec === null ? 'none' : `${task.timeoutSec} s from now`}`,
    `output_path: ${task.outputPath}`,
    'automatic_notification: true',
    'next_step: You will be notified automatically when this task ends. Do NOT wait, sleep or poll TaskOutput for it: carry on with other work, or end your turn if nothing else is left.',
    'hint: The user sees it in the tasks panel and can stop it there. TaskOutput shows its output so far; TaskStop stops it.',
  ].join('\n');
}

const taskDisplay = (task: TaskRecord): ToolResultDisplay => ({ kind: 'task', taskId: task.id, status: 'running', description: task.description });

export function backgroundStartedResult(task: TaskRecord): ToolResult {
  return { output: `Started in the background.\n${taskFacts(task)}`, display: taskDisplay(task), truncated: true };
}

/** A foreground command handed to the background: what it printed so far, and how to follow it. */
export function movedToBackgroundResult(job: ShellJob, task: TaskRecord, why: 'timeout' | 'user', timeoutSec: number): ToolResult {
  const { text } = outputFor(job);
  const reason =
    why === 'timeout'
      ? `The command was still running when its ${timeoutSec} s timeout ran out, so it was moved to the background (it was not stopped).`
      : `The user moved the command to the background after ${formatDuration(Date.now() - job.startedAt)}.`;
  const sofar = text.trim() ? `Output so far:\n${text}${text.endsWith('\n') ? '' : '\n'}` : 'No output so far.\n';
  return { output: `${reason}\n${sofar}${taskFacts(task)}`, display: taskDisplay(task), truncated: true };
}
