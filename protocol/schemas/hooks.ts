import { z } from 'zod';
import { hookEventNames } from '../helpers/names';
import { approvalSchemas } from './approvals';
import { builtOnce } from '../helpers/built-once';

// Hooks: the user's commands run on the agent's events (the `"hooks"` section of the settings files).

/** The schemas of this file, built on first use (hookSchemas): a run that validates none of them (the CLI's text turn) never builds them. */
const buildHookSchemas = () => {
  const { RuleSource } = approvalSchemas();
  /** The events a hook can run on (the names other agents use). */
  const HookEventName = z.enum(hookEventNames);
  /** One configured hook command, as Settings lists it. */
  const HookInfo = z.object({
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
  /** Every hook in the three settings files and the problems found in their `"hooks"` sections. */
  const HooksOverview = z.object({
    hooks: z.array(HookInfo),
    problems: z.array(z.object({ file: z.string(), message: z.string() })),
    trusted: z.boolean(),
  });
  /**
   * What a hook did that the user should see: `blocked` (exit 2 or decision block), `denied`/`allowed`/`asked`
   * (a PreToolUse permission decision), `changed` (updatedInput), `context` (text added for the model),
   * `stopped` (continue: false), `output` (stdout shown in the transcript), `error` (another exit code, a
   * failure to start), `timeout`.
   */
  const HookResultKind = z.enum(['blocked', 'denied', 'allowed', 'asked', 'changed', 'context', 'stopped', 'output', 'error', 'timeout']);
  /** One hook entry in one settings file; `command` must still be what is there (the file may have changed). */
  const HookRef = z
    .object({
      source: RuleSource,
      event: HookEventName,
      group: z.number().int().nonnegative().max(10_000),
      index: z.number().int().nonnegative().max(10_000),
      command: z.string().min(1).max(16_384),
    })
    .strict();
  /** A hook to add to one settings file. */
  const HookAddInput = z
    .object({
      source: RuleSource,
      event: HookEventName,
      /** A regular expression on the tool name (tool events; '' = every tool). */
      matcher: z.string().trim().max(500).default(''),
      command: z.string().trim().min(1, 'A hook needs a command.').max(16_384),
      timeoutSec: z.number().int().min(1).max(3_600).optional(),
    })
    .strict();
  /** What a hook did when tested with a sample event. */
  const HookTestResult = z.object({
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
  return { HookEventName, HookInfo, HooksOverview, HookResultKind, HookRef, HookAddInput, HookTestResult };
};
export type HookSchemas = ReturnType<typeof buildHookSchemas>;
export const hookSchemas: () => HookSchemas = builtOnce(buildHookSchemas);

// The types of the schemas above (each documented at its schema).
export type HookEventName = z.infer<HookSchemas['HookEventName']>;
export type HookInfo = z.infer<HookSchemas['HookInfo']>;
export type HooksOverview = z.infer<HookSchemas['HooksOverview']>;
export type HookResultKind = z.infer<HookSchemas['HookResultKind']>;
export type HookRef = z.infer<HookSchemas['HookRef']>;
export type HookAddInput = z.infer<HookSchemas['HookAddInput']>;
export type HookTestResult = z.infer<HookSchemas['HookTestResult']>;

export const hookEventShapes = () => {
  const { HookEventName, HookResultKind } = hookSchemas();
  const { RuleSource } = approvalSchemas();
  return {
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
  };
};
