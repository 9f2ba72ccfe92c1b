import type { PermissionMode, SessionEventInput, ToolInputDisplay } from '#protocol';
import { slimResultDisplay } from '#protocol/helpers/file-text';
import type { Authorization, ResolvedCall } from '#contract/calls';
import type { ContentPart, ModelMessage, ToolCallRequest } from '#contract/model';
import { type ToolEnv, type ToolExecution, type ToolResult, ToolInputError, errorResult, isExecution } from '#contract/tool';
import { inputSchemaOf } from '#contract/tool-input';
import type { ToolRegistry } from '../tools/registry';
import { MAX_OUTPUT_CHARS, capText } from '#contract/output-limits';
import { validateArgs } from '../tools/validate';
import { schedule } from './scheduler';
import type { ToolsStart } from '#contract/capability';
import type { SessionHooks } from '#contract/hooks';
import { postToolUse, preToolUse } from './tool-hooks';
import { declaredWrites, mayChange, namedFiles } from './call-accesses';

export interface ToolCallOptions {
  registry: ToolRegistry;
  env: ToolEnv;
  turnId: string;
  step: number;
  signal: AbortSignal;
  emit: (event: SessionEventInput) => void;
  /** Where a result too long for the model is saved in full; returns the file path. */
  saveFullOutput: (toolName: string, callId: string, text: string) => Promise<string>;
  /** Decide whether a call may run (approvals suspend here). Default: allowed. */
  authorize?: (call: ResolvedCall) => Promise<Authorization>;
  /** How long a tool that ignores the abort signal is waited for. */
  abortGraceMs?: number;
  /** The user's hooks: PreToolUse before a call is authorized, PostToolUse after it ran. */
  hooks?: SessionHooks;
  /** The calls that will run (approved), just before the first of them does. */
  beforeRun?: (calls: ToolsStart['calls']) => Promise<void>;
}

type Prepared =
  | { kind: 'ready'; call: ToolCallRequest; args: unknown; execution: ToolExecution; grantedMode?: PermissionMode }
  /** Settled without running; `shown` keeps what the call would have done (a refused call still shows its diff or command). */
  | { kind: 'done'; call: ToolCallRequest; result: ToolResult; shown?: Shown };

/** What a call's card shows: its arguments, and what it would have done. */
type Shown = { args: unknown; execution: Pick<ToolExecution, 'description' | 'display'> };

/** A step's tool messages, in call order, whether a result asked to end the turn, and the calls that ran. */
export interface ToolBatch {
  messages: ModelMessage[];
  stopTurn: boolean;
  ran: Array<{ callId: string; name: string; readOnly: boolean; isError: boolean; writes?: string[]; files?: string[] }>;
}

/**
 * Run one step's tool calls: parse, validate, resolve, authorize (in call order), then execute as
 * parallel as accesses allow. Every call gets exactly one started and one result event, and one
 * tool message, in the order the model issued them. A result with `stopBatchAfterThis` skips the later
 * calls that have not started; one with `stopTurn` ends the turn after this step.
 */
export async function runToolCalls(calls: readonly ToolCallRequest[], options: ToolCallOptions): Promise<ToolBatch> {
  const prepared: Prepared[] = [];
  for (const call of calls) {
    const env = { ...options.env, changedEarlier: (path: string) => prepared.some((item) => item.kind === 'ready' && mayChange(item.execution, path)) };
    const item = options.signal.aborted ? interrupted(call, 'before it ran') : await prepare(call, calls.length, { ...options, env });
    options.emit({
      type: 'tool.call.started',
      turnId: options.turnId,
      step: options.step,
      callId: call.id,
      name: call.name,
      args: shownOf(item)?.args ?? safeJson(call.arguments),
      description: shownOf(item)?.execution.description ?? call.name,
      display: shownOf(item)?.execution.display ?? genericDisplay(call),
    });
    prepared.push(item);
  }

  const ready = prepared.flatMap((item) => {
    if (item.kind !== 'ready') return [];
    const writes = declaredWrites(item.execution);
    return [{ callId: item.call.id, name: item.call.name, readOnly: item.execution.readOnly === true, ...(writes ? { writes } : {}) }];
  });
  if (ready.length && options.beforeRun && !options.signal.aborted) await options.beforeRun(ready);

  const durations = new Array<number>(prepared.length).fill(0);
  const messages = new Array<ModelMessage>(prepared.length);
  let nextToEmit = 0;
  const finished = new Array<ToolResult | undefined>(prepared.length);
  const emitReady = () => {
    while (nextToEmit < prepared.length && finished[nextToEmit]) {
      const item = prepared[nextToEmit]!;
      const result = finished[nextToEmit]!;
      const text = outputText(result);
      options.emit({
        type: 'tool.call.result',
        turnId: options.turnId,
        callId: item.call.id,
        name: item.call.name,
        isError: result.isError === true,
        output: text,
        // A Read's text rides in `output` only; the window's reducer gives the card its text back.
        ...(result.display ? { display: slimResultDisplay(result.display, text) } : {}),
        durationMs: durations[nextToEmit]!,
      });
      messages[nextToEmit] = {
        role: 'tool',
        toolCallId: item.call.id,
        toolName: item.call.name,
        content: modelContent(result),
        ...(result.isError ? { isError: true } : {}),
        ...(result.announces?.length ? { announced: Object.fromEntries(result.announces.map((f) => [f.key, f.text])) } : {}),
      };
      nextToEmit++;
    }
  };

  let stoppedBy: { index: number; name: string } | null = null;
  let stopTurn = false;
  // Each call listens to a signal of its own, and only the batch listens to the turn's: a step of many
  // parallel calls must not pile listeners (and a MaxListenersExceededWarning) onto one signal.
  const ran: ToolBatch['ran'] = [];
  const signals = new CallSignals(options.signal, prepared.length);
  try {
    await schedule(
      prepared.map((item, index) => ({
        accesses: item.kind === 'ready' ? item.execution.accesses : [],
        run: async () => {
          const t0 = Date.now();
          const skipped = stoppedBy !== null && index > stoppedBy.index && item.kind === 'ready';
          const raw = skipped
            ? skippedResult(stoppedBy!.name)
            : item.kind === 'done'
              ? item.result
              : await execute(item, { ...options, signal: signals.get(index) });
          durations[index] = item.kind === 'done' || skipped ? 0 : Date.now() - t0;
          let result = await finalise(raw, item.call, options);
          if (item.kind === 'ready' && !skipped && options.hooks)
            result = await postToolUse(options.hooks, item, result, outputText(result), { ...options, signal: signals.get(index) });
          if (item.kind === 'ready' && !skipped) {
            const writes = declaredWrites(item.execution);
            const files = namedFiles(item.execution);
            ran.push({
              callId: item.call.id,
              name: item.call.name,
              readOnly: item.execution.readOnly === true,
              isError: result.isError === true,
              ...(writes ? { writes } : {}),
              ...(files.length ? { files } : {}),
            });
          }
          if (result.stopBatchAfterThis && (stoppedBy === null || index < stoppedBy.index)) stoppedBy = { index, name: item.call.name };
          if (result.stopTurn) stopTurn = true;
          return result;
        },
      })),
      (index, result) => {
        finished[index] = result;
        emitReady();
      },
    );
  } finally {
    signals.dispose();
  }
  return { messages, stopTurn, ran };
}

/** One abort signal per call of a batch, all aborted when the turn's signal aborts. */
class CallSignals {
  private readonly controllers: AbortController[];
  private readonly abort = () => {
    for (const controller of this.controllers) controller.abort(this.turn.reason);
  };

  constructor(
    private readonly turn: AbortSignal,
    count: number,
  ) {
    this.controllers = Array.from({ length: count }, () => new AbortController());
    if (turn.aborted) this.abort();
    else turn.addEventListener('abort', this.abort, { once: true });
  }

  get(index: number): AbortSignal {
    return this.controllers[index]!.signal;
  }

  dispose(): void {
    this.turn.removeEventListener('abort', this.abort);
  }
}

function skippedResult(stopper: string): ToolResult {
  return errorResult(
    `Skipped because a previous call (${stopper}) stopped the batch: this call was not run. Read that call's result, then decide whether to issue this one again.`,
  );
}

/** No tool takes arguments nested deeper; deeper ones would overflow the stack of every recursive walker (validation, logging). */
const MAX_ARGUMENT_DEPTH = 64;

/** How deeply a parsed JSON value nests, counted without recursion and given up past `limit`. */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

async function prepare(call: ToolCallRequest, batchSize: number, options: ToolCallOptions): Promise<Prepared> {
  const done = (result: ToolResult): Prepared => ({ kind: 'done', call, result });
  const registered = options.registry.get(call.name);
  if (!registered) {
    const names = options.registry.names();
    return done(errorResult(`Tool "${call.name}" does not exist. ${names.length ? `Available tools: ${names.join(', ')}.` : 'No tools are available.'}`));
  }
  if (!options.registry.isOffered(call.name)) {
    return done(
      errorResult(
        `Tool "${call.name}" is deferred: it is known but has not been selected, so its schema was not sent to you. Select it first with select_tools {"names": ["${call.name}"]}, then call it from your next step.`,
      ),
    );
  }
  if (registered.tool.exclusive && batchSize > 1) {
    return done(
      errorResult(
        `${call.name} must be the only tool call of its step, so it was not run. Call ${call.name} again on its own, in a step without other tool calls.`,
      ),
    );
  }
  let args: unknown;
  try {
    args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
  } catch (error) {
    return done(
      errorResult(
        `The arguments for ${call.name} are not valid JSON (${(error as Error).message}). Re-issue the call with a single JSON object that matches the tool's schema.`,
      ),
    );
  }
  if (nestingDepth(args, MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH) {
    return done(
      errorResult(
        `The arguments for ${call.name} are nested more than ${MAX_ARGUMENT_DEPTH} levels deep, which no tool takes. Re-issue the call with arguments that match the tool's schema.`,
      ),
    );
  }
  let resolved = await resolveCall(registered, call.name, args, options.env);
  if (!resolved.ok) return { kind: 'done', call, result: resolved.result, ...(resolved.shown ? { shown: resolved.shown } : {}) };
  let hookPermission: ResolvedCall['hookPermission'];
  if (options.hooks) {
    const pre = await preToolUse(options.hooks, call, resolved.args, options);
    if (pre.refusal) return { kind: 'done', call, result: pre.refusal, shown: resolved };
    if (pre.updatedInput) {
      // A hook's rewrite is checked like the model's own arguments: the schema, then the path guard.
      const rewritten = await resolveCall(registered, call.name, pre.updatedInput, options.env);
      if (!rewritten.ok) {
        const why = typeof rewritten.result.output === 'string' ? rewritten.result.output : 'they are not valid';
        return {
          kind: 'done',
          call,
          result: errorResult(`A PreToolUse hook rewrote the arguments of this ${call.name} call, and the rewritten call is refused: ${why}`),
          shown: resolved,
        };
      }
      resolved = rewritten;
    }
    hookPermission = pre.permission;
  }
  if (options.authorize) {
    const decision = await options.authorize({
      callId: call.id,
      name: call.name,
      args: resolved.args,
      execution: resolved.execution,
      policy: registered.tool.policy,
      turnId: options.turnId,
      signal: options.signal,
      ...(hookPermission ? { hookPermission } : {}),
    });
    if (!decision.allowed) return { kind: 'done', call, result: errorResult(decision.message), shown: resolved };
    if (decision.grantedMode) return { kind: 'ready', call, args: resolved.args, execution: resolved.execution, grantedMode: decision.grantedMode };
  }
  return { kind: 'ready', call, args: resolved.args, execution: resolved.execution };
}

type Resolution = { ok: true; args: unknown; execution: ToolExecution } | { ok: false; result: ToolResult; shown?: Shown };

/** Validate arguments against the tool's schema, then resolve what the call will do (paths through the path guard). */
async function resolveCall(registered: NonNullable<ReturnType<ToolRegistry['get']>>, name: string, args: unknown, env: ToolEnv): Promise<Resolution> {
  const problems = validateArgs(registered.schema, args);
  if (problems.length) return { ok: false, result: errorResult(`Invalid arguments for ${name}: ${problems.join('; ')}.`) };
  const parsed = inputSchemaOf(registered.tool.input).safeParse(args);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message));
    return { ok: false, result: errorResult(`Invalid arguments for ${name}: ${lines.join('; ')}.`) };
  }
  let resolved: ToolExecution | ToolResult;
  try {
    resolved = await registered.tool.resolveExecution(parsed.data, env);
  } catch (error) {
    if (error instanceof ToolInputError)
      return { ok: false, result: errorResult(error.message), ...(error.shown ? { shown: { args: parsed.data, execution: error.shown } } : {}) };
    return { ok: false, result: errorResult(`Tool ${name} failed to resolve execution: ${(error as Error).message}`) };
  }
  return isExecution(resolved) ? { ok: true, args: parsed.data, execution: resolved } : { ok: false, result: resolved };
}

async function execute(item: Extract<Prepared, { kind: 'ready' }>, options: ToolCallOptions): Promise<ToolResult> {
  const { signal } = options;
  if (signal.aborted) return interrupted(item.call, 'before it ran').result;
  const running = item.execution
    .execute({
      signal,
      callId: item.call.id,
      turnId: options.turnId,
      step: options.step,
      ...(item.grantedMode ? { grantedMode: item.grantedMode } : {}),
      onUpdate: (update) => options.emit({ type: 'tool.call.progress', turnId: options.turnId, callId: item.call.id, kind: update.kind, text: update.text }),
    })
    .catch((error: unknown): ToolResult => {
      if (signal.aborted) return interrupted(item.call, 'while it ran').result;
      // A refusal found only when the call runs (a schedule that never fires) is the model's to correct, not a failure.
      if (error instanceof ToolInputError) return errorResult(error.message);
      return errorResult(`Tool ${item.call.name} failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  const grace = options.abortGraceMs ?? 2_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const abandoned = new Promise<ToolResult>((resolve) => {
    onAbort = () => {
      timer = setTimeout(
        () => resolve(errorResult(`Tool ${item.call.name} was interrupted by the user and did not stop within ${grace} ms; its effects are unknown.`)),
        grace,
      );
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([running, abandoned]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

function shownOf(item: Prepared): Shown | undefined {
  return item.kind === 'ready' ? item : item.shown;
}

function interrupted(call: ToolCallRequest, when: string): Extract<Prepared, { kind: 'done' }> {
  return {
    kind: 'done',
    call,
    result: errorResult(`The user interrupted this ${call.name} call ${when}. Do not retry it unless the user asks.`),
  };
}

/** Validate the shape a tool returned and cap its text; save over-long output in full. */
async function finalise(raw: unknown, call: ToolCallRequest, options: ToolCallOptions): Promise<ToolResult> {
  const result = raw as ToolResult | null;
  if (!result || typeof result !== 'object' || (typeof result.output !== 'string' && !Array.isArray(result.output))) {
    return errorResult(`Tool ${call.name} returned an invalid result.`);
  }
  if (result.truncated || typeof result.output !== 'string') {
    if (result.truncated || typeof result.output === 'string') return result;
    return { ...result, output: result.output.map((p) => (p.type === 'text' ? { ...p, text: capText(p.text).text } : p)) };
  }
  const full = result.output;
  const capped = capText(full);
  if (!capped.truncated) return result;
  let hint = 'Output is truncated to fit in the message.';
  if (full.length > MAX_OUTPUT_CHARS) {
    try {
      const path = await options.saveFullOutput(call.name, call.id, full);
      hint = `Output is truncated to fit in the message: ${full.length.toLocaleString('en-US')} characters in full, saved to ${path}. Read that file with line_offset and n_lines to see the rest.`;
    } catch {
      // Keep the truncated text; the hint stays generic.
    }
  } else if (capped.longLines) {
    hint = `${capped.longLines} long line(s) were cut at 2,000 characters.`;
  }
  return { ...result, output: `${capped.text}\n${hint}`, truncated: true };
}

function modelContent(result: ToolResult): string | ContentPart[] {
  const prefix = result.isError ? 'ERROR: ' : '';
  if (typeof result.output === 'string') {
    const text = result.output.trim() === '' ? 'Tool output is empty.' : result.output;
    return prefix + text + (result.note ? `\n${result.note}` : '');
  }
  const parts: ContentPart[] = [...result.output];
  if (!parts.some((p) => p.type === 'text')) parts.unshift({ type: 'text', text: 'Tool returned non-text content.' });
  if (result.note) parts.push({ type: 'text', text: result.note });
  return parts;
}

/** The output as the UI shows it: without the model-only note. */
function outputText(result: ToolResult): string {
  if (typeof result.output === 'string') return result.output;
  return result.output.map((p) => (p.type === 'text' ? p.text : `[image ${p.mimeType}]`)).join('\n');
}

function safeJson(text: string): unknown {
  try {
    return text.trim() ? JSON.parse(text) : {};
  } catch {
    return text;
  }
}

function genericDisplay(call: ToolCallRequest): ToolInputDisplay {
  return { kind: 'generic', summary: call.name, detail: call.arguments.slice(0, 2_000) };
}
