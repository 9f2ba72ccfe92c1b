import { formatBytes, formatDuration } from '#protocol/helpers/units';
import type { TaskRecord } from '#contract/tasks';

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
