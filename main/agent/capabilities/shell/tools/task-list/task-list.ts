import { z } from 'zod';
import { localIso } from '../../cron/cron-expr';
import { formatBytes, formatDuration } from '../../../../../../protocol/units';
import type { SessionTasks } from '../../shell-session';
import type { TaskRecord } from '../../../../infra/tasks/task-record';
import { exactRule, matchGlobSubject } from '../../../../infra/policies/rule-match';
import { type Tool, access, defineTool } from '../../../../contract/tool';
import description from './task-list.md?raw';

const input = z.object({
  active_only: z.boolean().default(true).describe('Only running tasks (default true).'),
  limit: z.number().int().min(1).max(100).default(20).describe('At most this many tasks, newest first (1-100, default 20).'),
});

/** The key: value lines describing one task (shared by TaskList and TaskOutput). */
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

export function createTaskListTool(tasks: SessionTasks): Tool {
  return defineTool({
    name: 'TaskList',
    description,
    input,
    resolveExecution: (args) => {
      const subject = args.active_only ? 'active' : 'all';
      return {
        accesses: access.none(),
        description: args.active_only ? 'List running background tasks' : 'List all background tasks',
        display: { kind: 'generic', summary: args.active_only ? 'Running background tasks' : 'All background tasks' },
        approvalRule: exactRule('TaskList', subject),
        matchesRule: (pattern) => matchGlobSubject(pattern, subject),
        readOnly: true,
        execute: async () => {
          const running = tasks.manager.list(true).length;
          const shown = tasks.manager.list(args.active_only).slice(0, args.limit);
          const header = `active_background_tasks: ${running}`;
          if (!shown.length) return { output: `${header}\n${args.active_only ? 'No background task is running.' : 'No background tasks in this session.'}` };
          const now = Date.now();
          const records = shown.map((t) => taskLines({ ...t, outputBytes: tasks.manager.info(t).outputBytes }, now).join('\n'));
          return { output: [header, ...records].join('\n---\n') };
        },
      };
    },
  });
}
