import { z } from 'zod';
import { describeSchedule, localIso } from '../../cron/cron-expr';
import type { ShellSession } from '../../shell-session';
import { exactRule } from '#infra/policies/rule-match';
import { type Tool, defineTool } from '#contract/tool';
import description from './cron-create.md?raw';
import { toolInput } from '#contract/tool-input';

const input = toolInput('CronCreate', () =>
  z.object({
    cron: z
      .string()
      .min(1)
      .describe('5-field cron in local time (minute hour day-of-month month day-of-week), names allowed, or @hourly/@daily/@weekly/@monthly/@yearly.'),
    prompt: z.string().min(1).describe('What the scheduled turn should do (at most 8 KiB).'),
    recurring: z.boolean().default(true).describe('Repeat on the schedule (default), or fire once.'),
  }),
);

export function cronCreateTool(shell: ShellSession): Tool {
  return defineTool({
    name: 'CronCreate',
    // Scheduled prompts start turns of the main conversation: sub-agents cannot have them.
    policy: { approval: 'rules', mainAgentOnly: true },
    description,
    input,
    resolveExecution: (args) => {
      // Everything that would refuse the job is said now, before anyone is asked to approve it.
      const schedule = shell.cron.check(args);
      const human = describeSchedule(schedule.expr);
      return {
        description: `Schedule ${args.recurring ? '' : 'once '}${human}`,
        display: { kind: 'generic', summary: `Schedule a prompt ${args.recurring ? human : `once, ${human}`}`, detail: `${schedule.expr}\n\n${args.prompt}` },
        approvalRule: exactRule('CronCreate', JSON.stringify({ cron: args.cron, prompt: args.prompt, recurring: args.recurring })),
        execute: async () => {
          const job = await shell.cron.create({ cron: args.cron, prompt: args.prompt, recurring: args.recurring });
          const lines = [
            `id: ${job.id}`,
            `cron: ${job.cron}`,
            `humanSchedule: ${job.humanSchedule}`,
            `recurring: ${job.recurring}`,
            `nextFireAt: ${job.nextFireAt === null ? 'never' : localIso(job.nextFireAt)}`,
          ];
          if (job.expiresAt) lines.push(`expiresAt: ${localIso(job.expiresAt)} (recurring jobs last 7 days)`);
          lines.push('note: It runs as a new turn of this session when due and the session is idle. CronList shows scheduled prompts; CronDelete removes one.');
          return {
            output: lines.join('\n'),
            display: {
              kind: 'generic',
              summary: `Scheduled ${job.id}: ${job.humanSchedule}`,
              detail: job.nextFireAt ? `Next: ${localIso(job.nextFireAt)}` : 'Never fires again',
            },
          };
        },
      };
    },
  });
}
