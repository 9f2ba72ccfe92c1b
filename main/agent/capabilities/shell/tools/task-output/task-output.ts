import { z } from 'zod';
import { formatBytes } from '#protocol/helpers/units';
import type { SessionTasks } from '#contract/tasks';
import { readLog } from '#infra/tasks/task-record';
import { exactRule, matchGlobSubject } from '#infra/policies/rule-match';
import { type Tool, access, defineTool } from '#contract/tool';
import { capText } from '#contract/output-limits';
import { taskLines, knownTask } from '../../task-lines';
import description from './task-output.md?raw';
import { toolInput } from '#contract/tool-input';

const PREVIEW_BYTES = 32 * 1024;

const input = toolInput('TaskOutput', () => z.object({ task_id: z.string().min(1).describe('The task id, e.g. bash-1a2b3c4d.') }));

export function taskOutputTool(tasks: SessionTasks): Tool {
  return defineTool({
    name: 'TaskOutput',
    policy: { approval: 'rules', mainAgentOnly: false },
    description,
    input,
    resolveExecution: (args) => {
      const task = knownTask(tasks, args.task_id);
      return {
        accesses: access.none(),
        description: `Output of ${task.id}: ${task.description}`,
        display: { kind: 'task', taskId: task.id, status: task.status, description: task.description, taskKind: task.kind },
        approvalRule: exactRule('TaskOutput', task.id),
        matchesRule: (pattern) => matchGlobSubject(pattern, task.id),
        readOnly: true,
        execute: async () => {
          const current = tasks.get(task.id) ?? task;
          const log = await readLog(current.outputPath, undefined, PREVIEW_BYTES);
          let preview = log.text;
          if (log.offset > 0) {
            const firstBreak = preview.indexOf('\n');
            if (firstBreak >= 0) preview = preview.slice(firstBreak + 1);
          }
          const capped = capText(preview);
          const lines = [
            `retrieval_status: ${current.status === 'running' ? 'not_ready' : 'success'}`,
            ...taskLines({ ...current, outputBytes: Math.max(current.outputBytes, log.size) }, Date.now()),
          ];
          if (current.status === 'running') lines.push('note: The task is still running; this is its output so far. You will be notified when it ends.');
          if (log.offset > 0)
            lines.push(
              `[Showing the last ${formatBytes(log.end - log.offset)} of ${formatBytes(log.size)}. Read output_path with line_offset and n_lines for the rest.]`,
            );
          lines.push(log.size ? `output:\n${capped.text}` : 'output: (none yet)');
          return {
            output: lines.join('\n'),
            truncated: true,
            display: { kind: 'text', text: capped.text, ...(log.offset > 0 ? { truncated: true } : {}) },
          };
        },
      };
    },
  });
}
