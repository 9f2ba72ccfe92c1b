import { z } from 'zod';
import { localIso } from '../../cron/cron-expr';
import { RECURRING_LIFETIME_MS } from '../../cron/scheduler';
import type { ShellSession } from '../../shell-session';
import { type Tool, access, defineTool } from '#contract/tool';
import description from './cron-list.md?raw';
import { toolInput } from '#contract/tool-input';

const input = toolInput('CronList', () => z.object({}).strict());

const PREVIEW_BYTES = 200;

function preview(prompt: string): string {
  const bytes = Buffer.from(prompt, 'utf8');
  if (bytes.length <= PREVIEW_BYTES) return prompt;
  return `${bytes
    .subarray(0, PREVIEW_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '')}… (${bytes.length} bytes)`;
}

export function cronListTool(shell: ShellSession): Tool {
  return defineTool({
    name: 'CronList',
    // Scheduled prompts belong to the main conversation.
    policy: { approval: 'rules', mainAgentOnly: true },
    description,
    input,
    resolveExecution: () => ({
      accesses: access.none(),
      description: 'List scheduled prompts',
      display: { kind: 'generic', summary: 'Scheduled prompts' },
      approvalRule: 'CronList',
      readOnly: true,
      execute: async () => {
        const jobs = shell.cron.list();
        if (!jobs.length) return { output: 'scheduled_prompts: 0\nNo prompts are scheduled in this session.' };
        const now = shell.cron.time();
        const records = jobs.map((job) =>
          [
            `id: ${job.id}`,
            `cron: ${job.cron}`,
            `humanSchedule: ${job.humanSchedule}`,
            `nextFireAt: ${job.nextFireAt === null ? 'never' : localIso(job.nextFireAt)}`,
            `recurring: ${job.recurring}`,
            `ageDays: ${((now - job.createdAt) / 86_400_000).toFixed(1)}`,
            `stale: ${job.recurring && now - job.createdAt >= RECURRING_LIFETIME_MS}`,
            `prompt: ${preview(job.prompt)}`,
          ].join('\n'),
        );
        return { output: [`scheduled_prompts: ${jobs.length}`, ...records].join('\n---\n') };
      },
    }),
  });
}
