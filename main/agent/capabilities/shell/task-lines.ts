import { formatBytes, formatDuration } from '#protocol/helpers/units';
import { ToolInputError } from '#contract/tool';
import type { SessionTasks, TaskRecord } from '#contract/tasks';
import { localIso } from './cron/cron-expr';

/** The key: value lines describing one task (TaskList and TaskOutput). */
export function taskLines(task: TaskRecord, now: number): string[] {
  const lines = [`task_id: ${task.id}`, `status: ${task.status}`, `description: ${task.description}`, `command: ${task.command}`, `cwd: ${task.cwd}`];
  lines.push(`started_at: ${localIso(task.startedAt)}`);
  if (task.status === 'running') {
    lines.push(`running_for: ${formatDuration(now - task.startedAt)}`, `time_limit: ${task.timeoutSec === null ? 'none' : `${task.timeoutSec} s`}`);
  } else {
    lines.push(`duration: ${formatDuration((task.endedAt ?? now) - task.startedAt)}`);
    if (task.reason) lines.push(`ended: ${task.reason}`);
    if (task.exitCode !== undefined && task.exitCode !== null) lines.push(`exit_code: ${task.exitCode}`);
  }
  lines.push(`output_path: ${task.outputPath}`, `output_size: ${formatBytes(task.outputBytes)}`);
  return lines;
}

/** The session's task with this id, or a refusal naming the tasks it does have (TaskOutput, TaskStop). */
export function knownTask(tasks: SessionTasks, id: string): TaskRecord {
  const task = tasks.get(id);
  if (task) return task;
  const known = tasks
    .list()
    .slice(0, 10)
    .map((t) => t.id);
  throw new ToolInputError(
    `There is no background task "${id}" in this session.${known.length ? ` Known tasks: ${known.join(', ')}.` : ' This session has no background tasks.'} TaskList shows them.`,
  );
}
