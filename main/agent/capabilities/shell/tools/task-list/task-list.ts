import { z } from 'zod';
import type { SessionTasks } from '#contract/tasks';
import { taskLines } from '../../task-lines';
import { exactRule, matchGlobSubject } from '#infra/policies/rule-match';
import { type Tool, access, defineTool } from '#contract/tool';
import description from './task-list.md?raw';
import { toolInput } from '#contract/tool-input';

const input = toolInput('TaskList', () =>
  z.object({
    active_only: z.boolean().default(true).describe('Only running tasks (default true).'),
    limit: z.number().int().min(1).max(100).default(20).describe('At most this many tasks, newest first (1-100, default 20).'),
  }),
);

export function taskListTool(tasks: SessionTasks): Tool {
  return defineTool({
    name: 'TaskList',
    policy: { approval: 'rules', mainAgentOnly: false },
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
          const running = tasks.list(true).length;
          const shown = tasks.list(args.active_only).slice(0, args.limit);
          const header = `active_background_tasks: ${running}`;
          if (!shown.length) return { output: `${header}\n${args.active_only ? 'No background task is running.' : 'No background tasks in this session.'}` };
          const now = Date.now();
          const records = shown.map((t) => taskLines({ ...t, outputBytes: tasks.info(t).outputBytes }, now).join('\n'));
          return { output: [header, ...records].join('\n---\n') };
        },
      };
    },
  });
}
