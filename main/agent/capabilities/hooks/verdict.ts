import type { HookEventName, HookResultKind } from '#protocol';
import { type HookOutcome, noHookOutcome } from '#contract/hooks';
import { capText } from '#contract/output-limits';
import type { HookRun } from './run-hook';

/** What one hook said, before the hooks of an event are merged. */
export interface HookVerdict {
  outcome: HookOutcome;
  /** What the window shows (null: nothing worth a notice). */
  notice: { result: HookResultKind; message: string } | null;
}

/** What a hook says reaches the model and the window capped, like tool output. */
const MAX_HOOK_TEXT = 10_000;
const capped = (text: string) => capText(text.trim(), { maxChars: MAX_HOOK_TEXT }).text;

/** Events whose plain stdout (exit 0) is context for the model rather than a line in the transcript. */
const CONTEXT_EVENTS = new Set<HookEventName>(['UserPromptSubmit', 'SessionStart']);

/**
 * Read one hook's run the way other agents' hook scripts expect: exit 0 is success (stdout is JSON for
 * finer control when it parses as an object, else text), exit 2 blocks with stderr as the reason, any
 * other code is an error shown to the user that changes nothing.
 */
export function verdictOf(event: HookEventName, run: HookRun): HookVerdict {
  const outcome = noHookOutcome();
  if (run.timedOut) return { outcome, notice: { result: 'timeout', message: 'It did not finish in time and was stopped (its whole process tree).' } };
  if (run.failure) return { outcome, notice: { result: 'error', message: capped(`It failed: ${run.failure}.\n${run.stderr}`) } };
  if (run.exitCode === 2) {
    const reason = capped(run.stderr) || 'A hook blocked this (exit code 2) without giving a reason on stderr.';
    outcome.block = { reason };
    return { outcome, notice: { result: 'blocked', message: reason } };
  }
  if (run.exitCode !== 0) {
    return { outcome, notice: { result: 'error', message: capped(`It exited with code ${run.exitCode ?? 'unknown'}. ${run.stderr || run.stdout}`) } };
  }
  const json = parseObject(run.stdout);
  if (!json) {
    const text = capped(run.stdout);
    if (!text) return { outcome, notice: null };
    if (CONTEXT_EVENTS.has(event)) {
      outcome.context.push(text);
      return { outcome, notice: { result: 'context', message: text } };
    }
    return { outcome, notice: { result: 'output', message: text } };
  }
  return fromJson(event, json);
}

function parseObject(stdout: string): Record<string, unknown> | null {
  const text = stdout.trim();
  if (!text.startsWith('{')) return null;
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() ? capped(value) : undefined);

function fromJson(event: HookEventName, json: Record<string, unknown>): HookVerdict {
  const outcome = noHookOutcome();
  const notes: Array<{ result: HookResultKind; message: string }> = [];
  if (json.continue === false) {
    const reason = str(json.stopReason) ?? 'A hook stopped the turn.';
    outcome.stop = { reason };
    notes.push({ result: 'stopped', message: reason });
  }
  const reason = str(json.reason);
  // "approve" is the older spelling of a PreToolUse allow.
  if (json.decision === 'block') {
    outcome.block = { reason: reason ?? 'A hook blocked this without giving a reason.' };
    notes.push({ result: 'blocked', message: outcome.block.reason });
  } else if (json.decision === 'approve' && event === 'PreToolUse') {
    outcome.permission = { decision: 'allow', reason: reason ?? 'allowed by a PreToolUse hook' };
  }
  const specific = json.hookSpecificOutput;
  if (specific && typeof specific === 'object' && !Array.isArray(specific)) {
    const s = specific as Record<string, unknown>;
    const forThisEvent = s.hookEventName === undefined || s.hookEventName === event;
    if (forThisEvent && event === 'PreToolUse') {
      const decision = s.permissionDecision;
      if (decision === 'allow' || decision === 'deny' || decision === 'ask') {
        const why = str(s.permissionDecisionReason) ?? `a PreToolUse hook said "${decision}"`;
        outcome.permission = { decision, reason: why };
        const result = decision === 'deny' ? 'denied' : decision === 'ask' ? 'asked' : 'allowed';
        if (decision !== 'allow' || str(s.permissionDecisionReason)) notes.push({ result, message: why });
      }
      const updated = s.updatedInput;
      if (updated && typeof updated === 'object' && !Array.isArray(updated)) {
        outcome.updatedInput = updated as Record<string, unknown>;
        notes.push({ result: 'changed', message: capped(`Changed the arguments to ${JSON.stringify(updated)}`) });
      }
    }
    const extra = forThisEvent ? str(s.additionalContext) : undefined;
    if (extra && (event === 'UserPromptSubmit' || event === 'SessionStart' || event === 'PostToolUse')) {
      outcome.context.push(extra);
      notes.push({ result: 'context', message: extra });
    }
  }
  const shown = str(json.systemMessage);
  if (shown) notes.push({ result: 'output', message: shown });
  if (!notes.length) return { outcome, notice: null };
  // One notice per hook: the strongest thing it did leads, the rest follows.
  return { outcome, notice: { result: notes[0]!.result, message: notes.map((n) => n.message).join('\n') } };
}

const PERMISSION_RANK = { deny: 3, ask: 2, allow: 1 } as const;

/** The hooks of one event together: deny beats ask beats allow; any block or stop counts; context adds up. */
export function mergeOutcomes(outcomes: readonly HookOutcome[]): HookOutcome {
  const merged = noHookOutcome();
  const blocks: string[] = [];
  for (const outcome of outcomes) {
    if (outcome.stop && !merged.stop) merged.stop = outcome.stop;
    if (outcome.block) blocks.push(outcome.block.reason);
    if (outcome.permission && (!merged.permission || PERMISSION_RANK[outcome.permission.decision] > PERMISSION_RANK[merged.permission.decision]))
      merged.permission = outcome.permission;
    // The first hook (in settings order) that rewrites the arguments wins; a later one cannot undo a check made on them.
    if (outcome.updatedInput && !merged.updatedInput) merged.updatedInput = outcome.updatedInput;
    merged.context.push(...outcome.context);
  }
  if (blocks.length) merged.block = { reason: blocks.join('\n') };
  return merged;
}
