import { z } from 'zod';
import { BACKGROUND_DEFAULT_TIMEOUT_S, BACKGROUND_MAX_TIMEOUT_S } from '../../process-tasks';
import type { ShellSession } from '../../shell-session';
import { guardPath } from '#infra/policies/path-guard';
import { exactRule } from '#infra/policies/rule-match';
import { TaskLimitError } from '#contract/tasks';
import {
  type Tool,
  type ShellExecution,
  type ToolExecution,
  type ToolResult,
  ToolInputError,
  defineTool,
  errorResult,
  renderDescription,
} from '#contract/tool';
import template from './bash.md?raw';
import { runForeground } from './foreground';
import { backgroundStartedResult, finishedResult } from './results';
import { toolInput, type SchemaOf } from '#contract/tool-input';

export const FOREGROUND_DEFAULT_TIMEOUT_S = 60;
export const FOREGROUND_MAX_TIMEOUT_S = 300;

const withBackground = toolInput('Bash', () =>
  z.object({
    command: z.string().min(1).describe('The command line, run with `bash -c` (or `sh -c`).'),
    cwd: z.string().optional().describe('Working directory. Default: the workspace.'),
    timeout: z
      .number()
      .int()
      .min(1)
      .max(BACKGROUND_MAX_TIMEOUT_S)
      .optional()
      .describe('Seconds. Foreground: default 60, at most 300 (then it moves to the background). Background: default 600, at most 86400.'),
    description: z.string().max(200).optional().describe('A few words on what the command does. Required with run_in_background.'),
    run_in_background: z.boolean().default(false).describe('Start it as a background task and return its task id at once.'),
    disable_timeout: z.boolean().default(false).describe('Background only: run without a time limit (servers, watchers).'),
  }),
);

/** Without background tasks (TaskList, TaskOutput and TaskStop are off), every command runs in the foreground. */
const foregroundOnly = toolInput('Bash (foreground only)', () =>
  z.object({
    command: withBackground.schema().shape.command,
    cwd: withBackground.schema().shape.cwd,
    timeout: z.number().int().min(1).max(FOREGROUND_MAX_TIMEOUT_S).optional().describe('Seconds: default 60, at most 300 (then the command is stopped).'),
    description: z.string().max(200).optional().describe('A few words on what the command does.'),
  }),
);

/** What a call may carry: the background fields only when background tasks are on. */
type BashArgs = z.output<SchemaOf<typeof foregroundOnly>> & Partial<Pick<z.output<SchemaOf<typeof withBackground>>, 'run_in_background' | 'disable_timeout'>>;

/** The background paragraph of the description. */
const BACKGROUND_PARAGRAPH =
  "- For servers, watchers, long builds and test suites, set `run_in_background: true` with a short `description`. The call returns at once with a task id, and you are notified automatically when the task ends: do not poll, sleep or wait for it. Background tasks get 600 s by default (at most 86,400), or no limit with `disable_timeout: true`. TaskOutput shows a task's output so far; TaskStop stops it.";

const BACKGROUND_ON = {
  timeout: 'When time runs out it is moved to the background, not killed, and you get its task id.',
  background: BACKGROUND_PARAGRAPH,
  stoppers: "timeout, TaskStop, the user's Stop",
};
const BACKGROUND_OFF = {
  timeout: 'When time runs out the command is stopped: split long work into shorter commands.',
  background:
    '- Background tasks are not available in this session: every command runs in the foreground, within its timeout. Do not start servers or watchers that never exit.',
  stoppers: "timeout, the user's Stop",
};

/** A Bash execution, with its command and directory exposed for the permission layer's command matching. */
/** A Bash call always says what shell command it runs, where, and whether in the OS sandbox. */
export type BashExecution = ToolExecution & { shell: ShellExecution };

/** What the UI shows for a command when the model gave no description. */
function shortLabel(command: string): string {
  const line = command.trim().split('\n')[0]!.replace(/\s+/g, ' ');
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

export interface BashToolOptions {
  quietAfterMs?: number;
  /** Background tasks are on (TaskList, TaskOutput and TaskStop offered); default true. */
  background?: boolean;
}

/** Bash, its description and arguments rendered for whether background tasks are on. */
export function bashTool(shell: ShellSession, options: BashToolOptions = {}): Tool {
  const tasksOn = options.background !== false;
  return defineTool({
    name: 'Bash',
    policy: { approval: 'rules', mainAgentOnly: false },
    description: renderDescription(template, tasksOn ? BACKGROUND_ON : BACKGROUND_OFF),
    input: tasksOn ? withBackground : foregroundOnly,
    resolveExecution: async (args: BashArgs, env): Promise<BashExecution> => {
      const background = args.run_in_background === true;
      if (!background && args.timeout !== undefined && args.timeout > FOREGROUND_MAX_TIMEOUT_S) {
        throw new ToolInputError(
          `timeout is at most ${FOREGROUND_MAX_TIMEOUT_S} seconds for a foreground command. For a longer job set run_in_background: true (up to ${BACKGROUND_MAX_TIMEOUT_S} s, or disable_timeout: true).`,
        );
      }
      if (args.disable_timeout && !background)
        throw new ToolInputError('disable_timeout only applies to background commands: set run_in_background: true as well, or drop disable_timeout.');
      if (background && !args.description?.trim())
        throw new ToolInputError(
          'A background command needs a description: a few words saying what it is (e.g. "dev server on :5173"). Add description and call again.',
        );
      const guarded = await guardPath(args.cwd ?? env.workspace, 'read', {
        environment: env.environment,
        workspace: env.workspace,
        extraRoots: env.extraRoots,
      });
      const info = await env.environment.stat(guarded.real).catch(() => null);
      if (!info)
        throw new ToolInputError(
          `The working directory "${args.cwd}" does not exist. Give an existing directory as cwd, or leave it out to use the workspace.`,
        );
      if (!info.isDirectory()) throw new ToolInputError(`cwd "${args.cwd}" is a file, not a directory. Give its folder instead.`);

      const label = args.description?.trim() || shortLabel(args.command);
      const cwd = guarded.real;
      // On a remote workspace the sandbox is bubblewrap there (infra/sandbox/remote.ts), when it works there.
      const commandSandbox = env.environment.kind === 'local' ? shell.handle.sandbox : shell.handle.sandbox.onRemote;
      const sandboxed = (await commandSandbox?.status())?.enabled === true;
      return {
        shell: { command: args.command, cwd, sandboxed },
        description: background ? `Start in background: ${label}` : label,
        display: {
          kind: 'command',
          command: args.command,
          cwd: guarded.display,
          ...(args.description?.trim() ? { description: args.description.trim() } : {}),
          ...(background ? { background: true } : {}),
          ...(sandboxed ? { sandboxed: true } : {}),
        },
        approvalRule: exactRule('Bash', args.command),
        execute: async (ctx) => {
          // A background command holds its place among the session's tasks before anything is spawned.
          let release: (() => void) | undefined;
          if (background) {
            try {
              release = await shell.tasks.reserve();
            } catch (error) {
              if (error instanceof TaskLimitError) return errorResult(`${error.message} The command was not started.`);
              throw error;
            }
          }
          let job;
          try {
            job = await shell.processes.spawn(args.command, cwd, {
              ...(commandSandbox ? { sandbox: commandSandbox } : {}),
              callId: ctx.callId,
              turnId: ctx.turnId,
            });
          } catch (error) {
            release?.();
            throw error;
          }
          if (job.pid === undefined) {
            release?.();
            return finishedResult(job, await job.done);
          }
          // A result that leaves a task running tells the model so: the running-tasks fact need not be repeated.
          const started = (result: ToolResult): ToolResult =>
            result.display?.kind === 'task' ? { ...result, announces: [shell.tasks.runningFact()] } : result;
          if (background) {
            const timeout = args.disable_timeout ? null : (args.timeout ?? BACKGROUND_DEFAULT_TIMEOUT_S);
            const task = shell.processes.adopt(job, label, timeout);
            release?.();
            return started(backgroundStartedResult(task));
          }
          return started(
            await runForeground(job, shell, ctx, {
              timeoutSec: args.timeout ?? FOREGROUND_DEFAULT_TIMEOUT_S,
              description: label,
              background: tasksOn,
              ...(options.quietAfterMs !== undefined ? { quietAfterMs: options.quietAfterMs } : {}),
            }),
          );
        },
      };
    },
  });
}
