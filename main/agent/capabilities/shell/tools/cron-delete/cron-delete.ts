import { z } from 'zod';
import type { ShellSession } from '../../shell-session';
import { exactRule } from '#infra/policies/rule-match';
import { type Tool, ToolInputError, defineTool, errorResult } from '#contract/tool';
import description from './cron-delete.md?raw';
import { toolInput } from '#contract/tool-input';

const input = toolInput('CronDelete', () => z.object({ id: z.string().min(1).describe('The job id (8 hex characters).') }));

export function cronDeleteTool(shell: ShellSession): Tool {
  return defineTool({
    name: 'CronDelete',
    // Scheduled prompts belong to the main conversation.
    policy: { approval: 'rules', mainAgentOnly: true },
    description,
    input,
    resolveExecution: (args) => {
      const job = shell.cron.list().find((j) => j.id === args.id);
      if (!job) {
        const ids = shell.cron.list().map((j) => j.id);
        const shape = /^[0-9a-f]{8}$/.test(args.id) ? '' : ' Ids are 8 hex characters, as CronCreate and CronList give them.';
        throw new ToolInputError(
          `There is no scheduled prompt "${args.id}" in this session.${shape}${ids.length ? ` Scheduled: ${ids.join(', ')}.` : ' Nothing is scheduled.'}`,
        );
      }
      return {
        description: `Delete scheduled prompt ${job.id} (${job.humanSchedule})`,
        display: { kind: 'generic', summary: `Delete scheduled prompt ${job.id}`, detail: `${job.cron}: ${job.prompt.slice(0, 500)}` },
        approvalRule: exactRule('CronDelete', job.id),
        execute: async () => {
          if (!(await shell.cron.delete(job.id)))
            return errorResult(`Scheduled prompt ${job.id} was already deleted (it may have just fired for the last time).`);
          return { output: `Deleted scheduled prompt ${job.id} (${job.humanSchedule}).` };
        },
      };
    },
  });
}
