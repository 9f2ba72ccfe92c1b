import type { CommandHandlers } from '#contract/commands';
import { CommandError } from '#contract/errors';
import type { Capability, CapabilityFactory, SessionHandle } from '#contract/capability';
import type { Tool } from '#contract/tool';
import { type KillableJob, killLeftovers, signalGroup } from '#infra/processes/kill-tree';
import { bashTool } from './tools/bash/bash';
import { cronCreateTool } from './tools/cron-create/cron-create';
import { cronDeleteTool } from './tools/cron-delete/cron-delete';
import { cronListTool } from './tools/cron-list/cron-list';
import { taskListTool } from './tools/task-list/task-list';
import { taskOutputTool } from './tools/task-output/task-output';
import { taskStopTool } from './tools/task-stop/task-stop';
import { processTaskKind } from './process-tasks';
import { ShellSession } from './shell-session';

export interface ShellCapabilityOptions {
  /** Grace between SIGTERM and SIGKILL (default 5 s). */
  killGraceMs?: number;
  maxOutputBytes?: number;
  /** Quiet time after which a foreground command counts as waiting (default 5 s). */
  quietAfterMs?: number;
  /** Background tasks (Bash's run_in_background, TaskList, TaskOutput, TaskStop); default on. Off, Bash says so and a timeout stops a command. */
  backgroundTasks?: boolean;
  /** Scheduled prompts never fire (CronCreate refuses, a due job is reported, not run); default: DEFT_DISABLE_CRON=1. */
  cronDisabled?: boolean;
}

const DEFAULT_OUTPUT_SLICE = 1024 * 1024;

/**
 * Shell and background work: the Bash tool, background tasks (TaskList/TaskOutput/TaskStop), scheduled
 * prompts (CronCreate/CronList/CronDelete), and the commands behind the tasks panel and command cards.
 */
export function shellCapability(options: ShellCapabilityOptions = {}): CapabilityFactory {
  return (core) => {
    const sessions = new Map<string, ShellSession>();
    /** Commands of sessions let go of: what they left running is still stopped when the core closes. */
    const released: KillableJob[] = [];
    const scheduling = core.host.hasWindow;
    const forSession = async (sessionId: string): Promise<ShellSession> => {
      await core.session(sessionId);
      const tasks = sessions.get(sessionId);
      if (!tasks) throw new CommandError('not_found', `Session ${sessionId} is not open.`);
      return tasks;
    };

    const shellSession = (session: SessionHandle) => {
      const parent = session.parentId ? sessions.get(session.parentId) : undefined;
      return new ShellSession(session, {
        environment: core.environment,
        emitApp: (event) => core.emitApp(event),
        now: () => core.now(),
        scheduling: scheduling && !session.agent,
        cronDisabled: options.cronDisabled ?? process.env.DEFT_DISABLE_CRON === '1',
        ...(parent ? { foreground: parent.foreground } : {}),
        ...(options.killGraceMs !== undefined ? { killGraceMs: options.killGraceMs } : {}),
        ...(options.maxOutputBytes !== undefined ? { maxOutputBytes: options.maxOutputBytes } : {}),
      });
    };

    const commands: Partial<CommandHandlers> = {
      listTasks: async ({ sessionId }) => {
        const tasks = await forSession(sessionId);
        return { tasks: await tasks.taskInfos(), cron: tasks.cron.list(), commands: tasks.activities() };
      },
      readTaskOutput: async ({ sessionId, taskId, offset, length }) => {
        const tasks = await forSession(sessionId);
        const slice = await tasks.tasks.readOutput(taskId, offset, length ?? DEFAULT_OUTPUT_SLICE);
        if (!slice) throw new CommandError('not_found', `There is no task ${taskId} in this session.`);
        return slice;
      },
      stopTask: async ({ sessionId, taskId }) => {
        const tasks = await forSession(sessionId);
        const record = await tasks.tasks.stop(taskId, 'user');
        if (!record) throw new CommandError('not_found', `There is no task ${taskId} in this session.`);
        return { task: await tasks.tasks.infoWithTail(record) };
      },
      clearTasks: async ({ sessionId, taskIds }) => {
        const tasks = await forSession(sessionId);
        const ids = taskIds ?? tasks.tasks.list().map((record) => record.id);
        return { cleared: tasks.tasks.clear(ids) };
      },
      deleteCronJob: async ({ sessionId, jobId }) => {
        const tasks = await forSession(sessionId);
        if (!(await tasks.cron.delete(jobId)))
          throw new CommandError('not_found', `There is no scheduled prompt ${jobId} in this session (it may have fired for the last time).`);
        return { ok: true as const };
      },
      stopOrBackgroundCommand: async ({ sessionId, callId, action }) => {
        const tasks = await forSession(sessionId);
        const command = tasks.foreground.get(callId);
        if (!command) throw new CommandError('not_found', 'That command is no longer running.');
        const taskId = await command.stopOrBackground(action);
        return { ok: true as const, ...(taskId ? { taskId } : {}) };
      },
    };

    const capability: Capability = {
      name: 'shell',
      taskKinds: [processTaskKind],
      tools: (session: SessionHandle): Tool[] => {
        let tasks = sessions.get(session.id);
        // A sub-agent's session is never loaded as a session of the workspace: its commands run with its
        // handle, which gives them its parent's background tasks and sandbox. Nothing is kept for it once
        // its turn is over (a finished sub-agent costs no memory).
        if (!tasks && session.agent) tasks = shellSession(session);
        if (!tasks) return [];
        const background = options.backgroundTasks !== false;
        return [
          bashTool(tasks, { background, ...(options.quietAfterMs !== undefined ? { quietAfterMs: options.quietAfterMs } : {}) }),
          ...(background ? [taskListTool(session.tasks), taskOutputTool(session.tasks), taskStopTool(session.tasks)] : []),
          // Scheduled prompts need a host that stays to fire them: not the one-shot CLI.
          ...(scheduling ? [cronCreateTool(tasks), cronListTool(tasks), cronDeleteTool(tasks)] : []),
        ];
      },
      facts: (session) => [session.tasks.runningFact()],
      // A command is coming (the turn's first Bash call began streaming): a remote machine gets its shell ready.
      onToolCallComing: (_session, { tool }) => {
        if (tool === 'Bash') core.environment.commandComing?.();
      },
      commands,
      onSessionLoaded: async (session) => {
        const tasks = shellSession(session);
        sessions.set(session.id, tasks);
        await tasks.load();
      },
      onTurnEnded: async (session) => {
        await sessions.get(session.id)?.onTurnEnded();
      },
      // A scheduled prompt fires only in a loaded session, and a foreground command's card must reach it.
      canUnload: (sessionId) => {
        const tasks = sessions.get(sessionId);
        return !tasks || (!tasks.foreground.size && !(scheduling && tasks.cron.list().length));
      },
      onSessionUnloaded: (session) => {
        const tasks = sessions.get(session.id);
        sessions.delete(session.id);
        // Only groups still alive are kept (the rest have nothing left to stop, and their pids may be reused).
        if (tasks) released.push(...tasks.release().filter((job) => signalGroup(job.pid, 0)));
      },
      onSessionDeleted: async (sessionId) => {
        const tasks = sessions.get(sessionId);
        sessions.delete(sessionId);
        await tasks?.close();
      },
      close: async () => {
        await Promise.allSettled([...[...sessions.values()].map((tasks) => tasks.close()), killLeftovers(released.splice(0), options.killGraceMs)]);
      },
    };
    return capability;
  };
}
