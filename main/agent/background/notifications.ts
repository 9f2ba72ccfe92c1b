import type { TaskRecord } from './task-record';

/** "1 h 2 min", "3 min 4 s", "5.2 s". */
export function formatDuration(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

const attr = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** What the model reads when a background task ends. */
export function taskEndedNotification(task: TaskRecord, tail: string): string {
  const ran = formatDuration((task.endedAt ?? task.startedAt) - task.startedAt);
  const lines = [
    `<notification category="task" type="task.${task.status}" source_kind="background_task" source_id="${attr(task.id)}">`,
    `Background task ${task.id} ${task.status === 'completed' ? 'completed' : `ended: ${task.status}`} (${task.reason ?? 'no reason recorded'}) after ${ran}.`,
    `description: ${task.description}`,
    `command: ${task.command}`,
    `output_path: ${task.outputPath} (${formatBytes(task.outputBytes)})`,
  ];
  if (tail.trim()) lines.push('Last lines of output:', tail.replace(/\n+$/, ''));
  else lines.push('It wrote no output.');
  lines.push('Use TaskOutput, or Read output_path, for more of its output.', '</notification>');
  return lines.join('\n');
}

/** The same event as a line in the transcript (what the user sees as the turn's prompt). */
export function taskEndedSummary(task: TaskRecord): string {
  return `Background task ${task.id} ${task.status === 'completed' ? 'completed' : task.status.replace('_', ' ')}: ${task.description}`;
}

/** What the model reads about tasks that were running when Deft stopped. */
export function lostTasksNotification(tasks: readonly TaskRecord[]): string {
  const list = tasks.map((t) => `- ${t.id}: ${t.description} (${t.command})`).join('\n');
  return [
    '<notification category="task" type="task.lost" source_kind="background_task">',
    `Deft stopped while ${tasks.length === 1 ? 'this background task was' : 'these background tasks were'} running; ${tasks.length === 1 ? 'it is' : 'they are'} now marked lost and will not report back:`,
    list,
    'Their output so far is kept (TaskOutput). Start them again if they are still needed.',
    '</notification>',
  ].join('\n');
}
