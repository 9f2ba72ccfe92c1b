import { z } from 'zod';
import { hookEventNames } from '../helpers/names';
import { RuleSource } from './approvals';

// Hooks: the user's commands run on the agent's events (the `"hooks"` section of the settings files).

/** The events a hook can run on (the names other agents use). */
export const HookEventName = z.enum(hookEventNames);
export type HookEventName = z.infer<typeof HookEventName>;

/** One configured hook command, as Settings lists it. */
export const HookInfo = z.object({
  event: HookEventName,
  /** The tool-name regular expression (tool events only; '' = every tool). */
  matcher: z.string(),
  command: z.string(),
  timeoutSec: z.number(),
  source: RuleSource,
  file: z.string(),
  /** False for a workspace's own hooks until the folder is trusted: they do not run. */
  active: z.boolean(),
  /**
   * Whether it runs in the OS sandbox: a workspace's hooks do, the user's own (~/.deft/settings.json) do not, as in
   * Claude Code; `"sandbox": true|false` on the hook decides otherwise.
   */
  sandboxed: z.boolean(),
  /** `"disabled": true` on the hook: listed, never run. */
  disabled: z.boolean().optional(),
  /** Where it is in its file: `hooks.<event>[group].hooks[index]` (to disable or test this very entry). */
  group: z.number().int().nonnegative().optional(),
  index: z.number().int().nonnegative().optional(),
  /** An installed plugin's hook (runs as the user's own; switched off with the plugin, not edited here). */
  plugin: z.string().optional(),
});
export type HookInfo = z.infer<typeof HookInfo>;

/** Every hook in the three settings files and the problems found in their `"hooks"` sections. */
export const HooksOverview = z.object({
  hooks: z.array(HookInfo),
  problems: z.array(z.object({ file: z.string(), message: z.string() })),
  trusted: z.boolean(),
});
export type HooksOverview = z.infer<typeof HooksOverview>;

/**
 * What a hook did that the user should see: `blocked` (exit 2 or decision block), `denied`/`allowed`/`asked`
 * (a PreToolUse permission decision), `changed` (updatedInput), `context` (text added for the model),
 * `stopped` (continue: false), `output` (stdout shown in the transcript), `error` (another exit code, a
 * failure to start), `timeout`.
 */
export const HookResultKind = z.enum(['blocked', 'denied', 'allowed', 'asked', 'changed', 'context', 'stopped', 'output', 'error', 'timeout']);
export type HookResultKind = z.infer<typeof HookResultKind>;

export const hookEventShapes = () => ({
  /** A hook ran and did something worth showing (blocked, changed, added, failed). */
  'hook.ran': {
    turnId: z.string().optional(),
    callId: z.string().optional(),
    event: HookEventName,
    command: z.string(),
    source: RuleSource,
    result: HookResultKind,
    /** What the hook said (its reason, stderr or stdout), capped. */
    message: z.string(),
    toolName: z.string().optional(),
  },
});

/** One hook entry in one settings file; `command` must still be what is there (the file may have changed). */
export const HookRef = z
  .object({
    source: RuleSource,
    event: HookEventName,
    group: z.number().int().nonnegative().max(10_000),
    index: z.number().int().nonnegative().max(10_000),
    command: z.string().min(1).max(16_384),
  })
  .strict();
export type HookRef = z.infer<typeof HookRef>;

/** A hook to add to one settings file. */
export const HookAddInput = z
  .object({
    source: RuleSource,
    event: HookEventName,
    /** A regular expression on the tool name (tool events; '' = every tool). */
    matcher: z.string().trim().max(500).default(''),
    command: z.string().trim().min(1, 'A hook needs a command.').max(16_384),
    timeoutSec: z.number().int().min(1).max(3_600).optional(),
  })
  .strict();
export type HookAddInput = z.infer<typeof HookAddInput>;

/** What a hook did when tested with a sample event. */
export const HookTestResult = z.object({
  /** The sample event it read on stdin (JSON). */
  input: z.string(),
  exitCode: z.number().nullable(),
  stdout: z.string(),
  stderr: z.string(),
  timedOut: z.boolean(),
  failure: z.string().optional(),
  sandboxed: z.boolean(),
  /** What Deft would make of it: a HookResultKind, or 'none' (it had no say). */
  decision: z.union([HookResultKind, z.literal('none')]),
  message: z.string().optional(),
});
export type HookTestResult = z.infer<typeof HookTestResult>;
