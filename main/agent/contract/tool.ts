import type { z } from 'zod';
import type { PermissionMode, ToolInputDisplay, ToolResultDisplay } from '#protocol';
import type { ContentPart } from './model';
import type { Fact } from './facts';
import type { Environment } from './environment';
import type { ChangeReviewer } from './review';
import type { CodeChecks } from './code-checks';
import type { LazyToolInput } from './tool-input';

/** What a call reads or writes, so the scheduler can run non-conflicting calls in parallel. */
export type Access = { kind: 'file'; operation: 'read' | 'write' | 'readwrite' | 'search'; path: string; recursive?: boolean } | { kind: 'all' };

export const access = {
  none: (): Access[] => [],
  all: (): Access[] => [{ kind: 'all' }],
  readFile: (path: string): Access[] => [{ kind: 'file', operation: 'read', path }],
  writeFile: (path: string): Access[] => [{ kind: 'file', operation: 'write', path }],
  readWriteFile: (path: string): Access[] => [{ kind: 'file', operation: 'readwrite', path }],
  readTree: (path: string): Access[] => [{ kind: 'file', operation: 'read', path, recursive: true }],
  writeTree: (path: string): Access[] => [{ kind: 'file', operation: 'write', path, recursive: true }],
  searchTree: (path: string): Access[] => [{ kind: 'file', operation: 'search', path, recursive: true }],
};

/** Streamed progress from a running call (shown live; never sent to the model). */
export interface ToolUpdate {
  kind: 'stdout' | 'stderr' | 'output' | 'status' | 'progress';
  text: string;
}

export interface ToolRunContext {
  signal: AbortSignal;
  onUpdate(update: ToolUpdate): void;
  callId: string;
  turnId: string;
  /** The model step (1-based, within the turn) that issued the call. */
  step: number;
  /** The permission mode the user chose, when approving this call, for the work it starts (Authorization). */
  grantedMode?: PermissionMode;
}

/** What a call produced. `note` reaches only the model; `display` only the UI. */
export interface ToolResult {
  output: string | ContentPart[];
  isError?: boolean;
  display?: ToolResultDisplay;
  note?: string;
  /** The tool already capped its output and told the model how to get the rest. */
  truncated?: boolean;
  /**
   * Loop hint: the later calls of this step that have not started are not run; each gets an error
   * result saying it was skipped. A tool that may set this should run exclusively (declare no accesses),
   * so that no later call runs beside it.
   */
  stopBatchAfterThis?: boolean;
  /** Loop hint: once this step's results are recorded, the turn ends without another model step. */
  stopTurn?: boolean;
  /**
   * Facts this result already tells the model (TodoList's new list, the goal CreateGoal started): they
   * are recorded with the result, so no reminder repeats them at the next step.
   */
  announces?: Fact[];
}

/**
 * How the permission layer approves a call of a tool. The tool says what it is; capabilities/approvals decides.
 * - `rules`: by the permission mode and the rules (read-only calls run, the rest asks unless a rule or the mode allows it);
 * - `self`: runs in every mode (deny rules still apply): it only touches the session's own state, or it is itself a
 *   conversation with the user (a question, a plan review), or it delegates work whose every call is decided on its own;
 * - `edit`: a file edit: accept-edits mode runs it inside the workspace, review mode's hunk review is its approval, and
 *   plan mode lets it write the plan file only;
 * - `goal-start`: starts work that goes on turn after turn: it asks unless the mode is yolo.
 */
export type ApprovalKind = 'rules' | 'self' | 'edit' | 'goal-start';

/** What a tool is, for the layers that decide about it: declared by each tool in its own folder. */
export interface ToolPolicy {
  approval: ApprovalKind;
  /**
   * Only the session's own agent gets it, never a sub-agent: delegation, goals, plan mode, scheduled prompts and
   * questions belong to the conversation with the user.
   */
  mainAgentOnly: boolean;
}

/** A shell command as a call will run it: what the permission layer parses, matches against rules and sandboxes. */
export interface ShellExecution {
  /** The command line, as given. */
  command: string;
  /** The directory it runs in: absolute, links resolved. */
  cwd: string;
  /** It runs in the OS sandbox. */
  sandboxed: boolean;
}

/** A validated call, resolved before anything happens: what it will touch and how to show it. */
export interface ToolExecution {
  /** Omitted = exclusive (conflicts with every other call). */
  accesses?: Access[];
  description: string;
  display: ToolInputDisplay;
  /** The rule stored when the user approves this call for the session, e.g. `Read(/abs/path)`. */
  approvalRule: string;
  /** Whether a user rule argument (`Tool(<arg>)`) covers this call. Without it only name rules match. */
  matchesRule?(ruleArgument: string): boolean;
  /** Only reads (never changes files, processes or the outside world). */
  readOnly?: boolean;
  /**
   * The user reviews this change hunk by hunk before anything is written (review mode): that review is
   * the approval, so permission modes need not ask as well (deny and ask rules, protected paths still apply).
   */
  reviewedByUser?: boolean;
  /**
   * The call reaches a host chosen by the model (a web fetch): even read-only, it asks in ask and
   * accept-edits modes until the host is approved. `url` is normalised (what rules match).
   */
  network?: { url: string; host: string };
  /** What "approve for session" and "always allow" cover when wider than this one call, in words (e.g. a host). */
  approvalScope?: string;
  /** Set when the call runs a shell command: rules match it part by part, plan mode asks, the sandbox may allow it. */
  shell?: ShellExecution;
  execute(ctx: ToolRunContext): Promise<ToolResult>;
}

/** Per-session facts and services a tool may use. */
export interface ToolEnv {
  /** The machine the workspace is on: every file, process and search of a tool goes through it. */
  environment: Environment;
  /** The workspace folder, a real absolute path on `environment`. */
  workspace: string;
  home: string;
  sessionId: string;
  sessionDir: string;
  /** What the configured model accepts. */
  capabilities: { imageInput: boolean };
  /** Folders outside the workspace that count as inside for the path guard (e.g. skill folders). */
  extraRoots: () => readonly string[];
  /**
   * The user's deny rules on reading, as a test of an absolute path: the rule that hides it (e.g.
   * `Read(private/**)`), or null. Search tools apply it to their root and to every file they would return.
   */
  readDenials?: () => Promise<(path: string) => string | null>;
  /** Present when a capability reviews file changes before they are written (review mode). */
  reviewer?: ChangeReviewer;
  /** Present when language servers check what the file tools read and write (contract/code-checks.ts). */
  codeChecks?: CodeChecks;
  /**
   * Whether a call before this one in the same step may change `path` (a real path) before this one runs: a tool
   * whose input is wrong for the file as it is now fails at once only when nothing earlier may fix that.
   */
  changedEarlier?: (path: string) => boolean;
}

/** Where a tool comes from: built into Deft, an MCP server, or the user. */
export type ToolSource = 'builtin' | 'mcp' | 'user';

/** `inline` tools are offered to the model at once; `deferred` ones are known but offered only once selected. */
export type ToolDisclosure = 'inline' | 'deferred';

/** A tool: input schema, model-facing description, and a pure resolve step that returns an execution. */
export interface Tool<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  /** A zod schema, or a built-in tool's lazily built one with its JSON Schema precomputed (tool-input.ts). */
  input: S | LazyToolInput<S>;
  /** Default `builtin`. */
  source?: ToolSource;
  /** Default `inline`. */
  disclosure?: ToolDisclosure;
  /**
   * A JSON Schema (any draft) given as is, for tools whose schema comes from elsewhere (MCP servers): it is
   * what the model is sent and what arguments are validated against, instead of `input`'s.
   */
  inputSchema?: Record<string, unknown>;
  /** The call must be the only one of its step: issued with others, it is refused (the others run). */
  exclusive?: boolean;
  /** How its calls are approved and who may have it (contract: ToolPolicy). */
  policy: ToolPolicy;
  resolveExecution(args: z.output<S>, env: ToolEnv): ToolExecution | ToolResult | Promise<ToolExecution | ToolResult>;
}

/**
 * A description that depends on configuration: `{{name}}` placeholders filled in. A placeholder without
 * a value is a bug, so it throws rather than show the model a template.
 */
export function renderDescription(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`The tool description has no value for {{${name}}}.`);
    return value;
  });
}

export function defineTool<S extends z.ZodType>(tool: Tool<S>): Tool<S> {
  return tool;
}

export function isExecution(value: ToolExecution | ToolResult): value is ToolExecution {
  return typeof (value as ToolExecution).execute === 'function';
}

/** A thrown error whose message is the tool result verbatim (path policy refusals and the like). */
/**
 * A call that cannot be made as asked: its message goes back to the model. `shown` is what the call's card shows
 * (a failed Edit still names its file), when the tool knew that much before it failed.
 */
export class ToolInputError extends Error {
  override name = 'ToolInputError';
  constructor(
    message: string,
    readonly shown?: Pick<ToolExecution, 'description' | 'display'>,
  ) {
    super(message);
  }
}

export function errorResult(message: string, display?: ToolResultDisplay): ToolResult {
  return { output: message, isError: true, display: display ?? { kind: 'error', message } };
}
