import { z } from 'zod';
import { builtOnce } from '../helpers/built-once';

/** The schemas of this file, built on first use (taskSchemas): a run that validates none of them (the CLI's text turn) never builds them. */
const buildTaskSchemas = () => {
  /** Lifecycle of a background task. `lost`: it was running when Deft last stopped unexpectedly. */
  const TaskStatus = z.enum(['running', 'completed', 'failed', 'timed_out', 'killed', 'lost']);
  /** What runs in a task: a shell command (`bash`), a sub-agent (`agent`), a question waiting for the user (`question`). Also its id's prefix. */
  const TaskKind = z.enum(['bash', 'agent', 'question']);
  /** A background task as the tasks panel shows it. */
  const TaskInfo = z.object({
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
  /** A scheduled prompt of a session. */
  const CronJobInfo = z.object({
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
  /** A foreground command of a running tool call that has gone quiet (no output for a while, its processes asleep). */
  const CommandActivity = z.object({
    callId: z.string(),
    taskId: z.string(),
    waiting: z.boolean(),
    /** When it last wrote output (or started), epoch ms. */
    quietSince: z.number(),
  });
  return { TaskStatus, TaskKind, TaskInfo, CronJobInfo, CommandActivity };
};
export type TaskSchemas = ReturnType<typeof buildTaskSchemas>;
export const taskSchemas: () => TaskSchemas = builtOnce(buildTaskSchemas);

// The types of the schemas above (each documented at its schema).
export type TaskStatus = z.infer<TaskSchemas['TaskStatus']>;
export type TaskKind = z.infer<TaskSchemas['TaskKind']>;
export type TaskInfo = z.infer<TaskSchemas['TaskInfo']>;
export type CronJobInfo = z.infer<TaskSchemas['CronJobInfo']>;
export type CommandActivity = z.infer<TaskSchemas['CommandActivity']>;
