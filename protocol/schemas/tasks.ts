import { z } from 'zod';

/** Lifecycle of a background task. `lost`: it was running when Deft last stopped unexpectedly. */
export const TaskStatus = z.enum(['running', 'completed', 'failed', 'timed_out', 'killed', 'lost']);
export type TaskStatus = z.infer<typeof TaskStatus>;

/** What runs in a task: a shell command (`bash`), a sub-agent (`agent`), a question waiting for the user (`question`). Also its id's prefix. */
export const TaskKind = z.enum(['bash', 'agent', 'question']);
export type TaskKind = z.infer<typeof TaskKind>;

/** A background task as the tasks panel shows it. */
export const TaskInfo = z.object({
  id: z.string(),
  kind: TaskKind,
  description: z.string(),
  /** What it runs, in one line (the shell command of a `bash` task). */
  command: z.string(),
  cwd: z.string(),
  status: TaskStatus,
  pid: z.number().int().optional(),
  startedAt: z.number(),
  endedAt: z.number().optional(),
  exitCode: z.number().int().nullable().optional(),
  /** Why it ended, in words ("exit code 2", "stopped by the user", "timed out after 600 s"…). */
  reason: z.string().optional(),
  /** Seconds until it is stopped; null when it runs without a time limit. */
  timeoutSec: z.number().nullable(),
  outputPath: z.string(),
  outputBytes: z.number().int(),
  /** The last lines of output (ANSI stripped). */
  tail: z.string(),
});
export type TaskInfo = z.infer<typeof TaskInfo>;

/** A scheduled prompt of a session. */
export const CronJobInfo = z.object({
  id: z.string(),
  cron: z.string(),
  humanSchedule: z.string(),
  prompt: z.string(),
  recurring: z.boolean(),
  createdAt: z.number(),
  /** Next time it is due (epoch ms); null when it will never fire again. */
  nextFireAt: z.number().nullable(),
  lastFiredAt: z.number().optional(),
  /** Recurring jobs expire 7 days after creation (one last fire, then deleted). */
  expiresAt: z.number().optional(),
});
export type CronJobInfo = z.infer<typeof CronJobInfo>;

/** A foreground command of a running tool call that has gone quiet (no output for a while, its processes asleep). */
export const CommandActivity = z.object({
  callId: z.string(),
  taskId: z.string(),
  waiting: z.boolean(),
  /** When it last wrote output (or started), epoch ms. */
  quietSince: z.number(),
});
export type CommandActivity = z.infer<typeof CommandActivity>;
