import { z } from 'zod';
import { formatDuration } from '#protocol/helpers/units';
import type { SessionTasks } from '#contract/tasks';
import { exactRule, matchGlobSubject } from '#infra/policies/rule-match';
import { type Tool, access, defineTool } from '#contract/tool';
import { knownTask } from '../../task-lines';
import description from './task-stop.md?raw';
import { toolInput } from '#contract/tool-input';

const input = toolInput('TaskStop', () =>
  z.object({
    task_id: z.string().min(1).describe('The task to stop, e.g. bash-1a2b3c4d.'),
    reason: z.string().max(500).default('Stopped by TaskStop').describe('Why it is being stopped (kept with the task).'),
  }),
);

export function taskStopTool(tasks: SessionTasks): Tool {
  return defineTool({
    name: 'TaskStop',
    policy: { approval: 'rules', mainAgentOnly: false },
    description,
    input,
    resolveExecution: (args) => {
      const task = knownTask(tasks, args.task_id);
      return {
        accesses: access.all(),
        description: `Stop ${task.id}: ${task.description}`,
        display: { kind: 'task_stop', taskId: task.id, taskDescription: task.description },
        approvalRule: exactRule('TaskStop', task.id),
        matchesRule: (pattern) => matchGlobSubject(pattern, task.id),
        execute: async () => {
          if (task.status !== 'running') {
            return {
              output: `Task ${task.id} is not running: it ended as ${task.status} (${task.reason ?? 'no reason recorded'}). Nothing to stop.`,
              display: { kind: 'task', taskId: task.id, status: task.status, description: task.description },
            };
          }
          const stopped = (await tasks.stop(task.id, 'model', args.reason)) ?? task;
          return {
            output: [
              `Task ${task.id} stopped: its process tree was terminated after ${formatDuration((stopped.endedAt ?? Date.now()) - stopped.startedAt)}.`,
              `status: ${stopped.status}`,
              `reason: ${args.reason}`,
              `output_path: ${stopped.outputPath}`,
            ].join('\n'),
            display: { kind: 'task', taskId: task.id, status: stopped.status, description: task.description },
          };
        },
      };
    },
  });
}
