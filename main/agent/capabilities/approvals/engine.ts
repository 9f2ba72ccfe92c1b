import { isAbsolute, resolve } from 'node:path';
import type { PermissionMode, PlanState } from '#protocol';
import type { ResolvedCall } from '#contract/calls';
import { catastrophicDeleteIn, commandsWithCwd, uncertainDeleteIn } from '#infra/policies/dangerous-command';
import { isWithin } from '#infra/policies/path-guard';
import { resolvedThere } from './resolved-there';
import { type Places, printedArgumentsAreData, protectedPathInCommand, protectedPathReason } from '#infra/policies/protected-paths';
import { type ParsedShell, parseShell } from '#infra/policies/shell-parse';
import { type PermissionRule, parseRule, ruleApplies, shellArguments } from './rules';
import { coversEveryPart } from '#infra/policies/bash-rule';

export interface DecisionContext {
  call: ResolvedCall;
  mode: PermissionMode;
  /** Rules from the settings files. */
  rules: readonly PermissionRule[];
  /** Rules the user approved for this session ("approve for session"). */
  sessionRules: readonly string[];
  plan: PlanState | null;
  places: Places;
  /** `sandbox.autoAllow` with the sandbox on: sandboxed commands run without asking in accept-edits mode. */
  sandboxAutoAllow?: boolean;
}

export type Decision =
  | { kind: 'allow'; reason: string }
  | { kind: 'deny'; message: string }
  /**
   * `rememberable` is false for protected paths: those are approved one call at a time. `exactOnly`: only
   * this very command may be remembered (a write Deft cannot place); a wider rule would not stop the asking.
   */
  | { kind: 'ask'; reason: string; rememberable: boolean; exactOnly?: boolean };

function where(rule: PermissionRule): string {
  return rule.file ? ` in ${rule.file}` : '';
}

/**
 * Decide on one call. Order: refusals (a recursive rm of /, ~ or the workspace; plan-mode limits), deny
 * rules, protected paths (always ask), session approvals, ask rules, allow rules, then the mode: read-only
 * tools run in every mode, accept-edits runs edits inside the workspace, yolo runs everything. What a tool is
 * (an edit, self-approved, a goal start, a shell command) comes from its policy and its execution (contract/tool.ts).
 * Deny beats ask beats allow, whatever the order the rules were written in.
 */
export async function decide(context: DecisionContext): Promise<Decision> {
  const decision = await decideByRules(context);
  // A PreToolUse hook that asks makes a call ask that would otherwise run (it cannot undo a refusal).
  const hook = context.call.hookPermission;
  if (hook?.decision === 'ask' && decision.kind === 'allow')
    return { kind: 'ask', reason: `The user's PreToolUse hook asks for your approval: ${hook.reason}`, rememberable: false };
  return decision;
}

async function decideByRules(context: DecisionContext): Promise<Decision> {
  const { call, mode, plan, places } = context;
  const command = call.execution.shell?.command ?? null;
  let shell: Promise<ParsedShell> | undefined;
  const parsedShell = () => (shell ??= parseShell(command ?? ''));

  // Where a command runs: the directory its execution resolved (links followed); the workspace for anything else.
  const cwd = call.execution.shell?.cwd ?? places.workspace;
  const deletePlaces = { workspace: places.workspace, home: places.userHome, cwd };
  // On a remote workspace, globs and links resolve there (resolved-there.ts).
  const deleteCheck = <T>(check: typeof catastrophicDeleteIn | typeof uncertainDeleteIn) =>
    resolvedThere(
      places,
      async (at) => (await check(await parsedShell(), { ...deletePlaces, ...(at.fs ? { fs: at.fs } : {}) })) as T | null,
      (found) => found !== null,
    );
  if (command !== null) {
    const hit = await deleteCheck<Awaited<ReturnType<typeof catastrophicDeleteIn>>>(catastrophicDeleteIn);
    if (hit) {
      return {
        kind: 'deny',
        message: `Refused: "${hit.text}" would recursively delete ${hit.target}. Deft never runs this, in any mode. Delete specific files or folders inside the workspace instead.`,
      };
    }
  }

  let planFileWrite = false;
  let noAutoApprove = false;
  if (plan?.active) {
    const outcome = planModeCheck(call, plan, places.workspace);
    if (outcome === 'deny') {
      return {
        kind: 'deny',
        message: `Plan mode is active, so ${call.name} cannot run: only read-only tools run, and edits may change only the plan file ${plan.path ?? ''}. Investigate with read-only tools, write the plan to that file, then call ExitPlanMode for the user's review.`,
      };
    }
    planFileWrite = outcome === 'plan-file';
    noAutoApprove = outcome === 'ask-only';
  }

  const applies = (rule: PermissionRule) => ruleApplies(rule, call, parsedShell);
  for (const rule of context.rules) {
    if (rule.decision === 'deny' && (await applies(rule))) {
      return {
        kind: 'deny',
        message: `${call.name} is blocked by the deny rule "${rule.pattern}"${where(rule)}. Do not retry it; find another way, or ask the user to change the rule.`,
      };
    }
  }

  if (call.policy.approval === 'self') return { kind: 'allow', reason: `${call.name} is always allowed` };

  const shellParsed = command !== null ? await parsedShell() : null;
  const guarded = await resolvedThere(
    places,
    (at) => protectedTarget(call, at, shellParsed),
    (found) => found?.kind === 'protected',
  );
  if (guarded?.kind === 'protected')
    return { kind: 'ask', reason: `${guarded.what} is protected: ${guarded.reason}. It always needs your approval, in every mode.`, rememberable: false };
  if (command !== null) {
    const uncertain = await deleteCheck<Awaited<ReturnType<typeof uncertainDeleteIn>>>(uncertainDeleteIn);
    if (uncertain)
      return {
        kind: 'ask',
        reason: `"${uncertain.text}" deletes recursively and ${uncertain.why}. It always needs your approval, in every mode.`,
        rememberable: false,
      };
  }
  if (guarded?.kind === 'unknown') {
    // In the OS sandbox, which keeps .git internals, Deft's settings and home out of reach however a
    // command spells the path, the user may approve exactly this command for the session (or always).
    // Unsandboxed, the same text can lead elsewhere next time (`"$(cat f)"` after f changed): once only.
    const sandboxed = call.execution.shell?.sandboxed === true;
    const rule = call.execution.approvalRule;
    const approved = context.sessionRules.includes(rule) || context.rules.some((r) => r.decision === 'allow' && r.pattern === rule);
    if (!sandboxed || !approved)
      return {
        kind: 'ask',
        reason: `${guarded.program ? `Deft cannot see what "${guarded.word}" runs` : `Deft cannot tell where "${guarded.word}" leads`}: it ${guarded.why}. It needs your approval in every mode.`,
        rememberable: sandboxed,
        ...(sandboxed ? { exactOnly: true } : {}),
      };
  }

  // Rules cover a command where it runs inside the workspace; elsewhere it needs its own approval. In plan
  // mode shell commands always ask (only read-only tools run on their own).
  const outsideCwd = command !== null && !isWithin(resolve(cwd), places.workspace);
  const rulesMayAllow = !outsideCwd && !(noAutoApprove && command !== null);
  const allowApplies = (rule: PermissionRule) => ruleApplies(rule, call, parsedShell, { ...places, cwd });
  // The user's own "approve for session" answers come before ask rules, or that answer to an ask rule's
  // prompt would never take effect.
  const sessionRules: PermissionRule[] = context.sessionRules.flatMap((text) => {
    const parsed = parseRule(text);
    return parsed.ok ? [{ ...parsed.rule, decision: 'allow' as const, source: 'session' as const }] : [];
  });
  if (rulesMayAllow) {
    for (const rule of sessionRules) {
      if (await allowApplies(rule)) return { kind: 'allow', reason: `approved for this session (${rule.pattern})` };
    }
  }
  // A compound command whose every part the user approved for the session, rule by rule.
  if (rulesMayAllow && command !== null && (await coversEveryPart(shellArguments(sessionRules, call.name), command, await parsedShell(), { ...places, cwd })))
    return { kind: 'allow', reason: 'every part approved for this session' };
  for (const rule of context.rules) {
    if (rule.decision === 'ask' && (await applies(rule)))
      return { kind: 'ask', reason: `The ask rule "${rule.pattern}"${where(rule)} matches this call.`, rememberable: true };
  }
  if (rulesMayAllow) {
    for (const rule of context.rules) {
      if (rule.decision === 'allow' && (await allowApplies(rule))) return { kind: 'allow', reason: `allowed by "${rule.pattern}"${where(rule)}` };
    }
    // A PreToolUse hook's allow stands where an allow rule does: after deny rules, protected paths and ask rules.
    if (call.hookPermission?.decision === 'allow' && !noAutoApprove && writesInside(call, places.workspace))
      return { kind: 'allow', reason: `allowed by a PreToolUse hook (${call.hookPermission.reason})` };
  }
  if (outsideCwd && mode !== 'yolo') {
    return { kind: 'ask', reason: `It runs in ${cwd}, outside the workspace, where rules do not apply: it needs its own approval.`, rememberable: false };
  }
  // No ask or deny rule hit any part, and each part is allowed by some rule: the whole command is.
  if (rulesMayAllow && command !== null) {
    const allowed = [...sessionRules, ...context.rules.filter((r) => r.decision === 'allow')];
    if (await coversEveryPart(shellArguments(allowed, call.name), command, await parsedShell(), { ...places, cwd }))
      return { kind: 'allow', reason: 'every part of the command is allowed by a rule' };
  }

  if (planFileWrite) return { kind: 'allow', reason: 'writes the plan file' };
  const network = call.execution.network;
  if (call.execution.readOnly && !network) return { kind: 'allow', reason: 'read-only' };
  if (call.policy.approval === 'goal-start') {
    if (mode === 'yolo') return { kind: 'allow', reason: 'yolo mode' };
    return { kind: 'ask', reason: 'Starting a goal lets Deft keep working turn after turn until it is done.', rememberable: true };
  }
  if (call.policy.approval === 'edit' && call.execution.reviewedByUser) {
    const paths = writtenPaths(call, places.workspace);
    if (paths.length && paths.every((p) => isWithin(resolve(p), places.workspace)))
      return { kind: 'allow', reason: 'review mode: you accept or reject the change hunk by hunk before it is written' };
  }
  if (mode === 'yolo' && !noAutoApprove) return { kind: 'allow', reason: 'yolo mode' };
  if (mode === 'accept-edits' && !noAutoApprove && context.sandboxAutoAllow && call.execution.shell?.sandboxed === true) {
    return { kind: 'allow', reason: 'accept-edits mode: the command runs in the OS sandbox (sandbox.autoAllow)' };
  }
  if (mode === 'accept-edits' && call.policy.approval === 'edit') {
    const paths = writtenPaths(call, places.workspace);
    if (paths.length && paths.every((p) => isWithin(resolve(p), places.workspace)))
      return { kind: 'allow', reason: 'accept-edits mode: an edit inside the workspace' };
    return { kind: 'ask', reason: 'Accept-edits mode runs edits inside the workspace only; this one is outside it.', rememberable: true };
  }
  if (noAutoApprove) return { kind: 'ask', reason: 'Plan mode is active: shell commands need your approval.', rememberable: true };
  if (network) return { kind: 'ask', reason: `This reaches ${network.host}, which has not been approved in this session.`, rememberable: true };
  return {
    kind: 'ask',
    reason:
      mode === 'ask'
        ? 'Ask mode: anything that is not read-only needs your approval.'
        : 'Accept-edits mode: this is not a file edit, so it needs your approval.',
    rememberable: true,
  };
}

/** Whether every path the call writes (if any) is inside the workspace: a hook's allow covers nothing outside it. */
function writesInside(call: ResolvedCall, workspace: string): boolean {
  return writtenPaths(call, workspace).every((p) => isWithin(resolve(p), workspace));
}

/** In plan mode: read-only tools and the user-facing tools run; edits only on the plan file; shell commands only with approval. */
function planModeCheck(call: ResolvedCall, plan: PlanState, workspace: string): 'pass' | 'plan-file' | 'ask-only' | 'deny' {
  const { approval } = call.policy;
  if (approval === 'self' || approval === 'goal-start' || call.execution.readOnly) return 'pass';
  if (approval === 'edit') {
    const paths = writtenPaths(call, workspace);
    return plan.path && paths.length > 0 && paths.every((p) => resolve(p) === resolve(plan.path!)) ? 'plan-file' : 'deny';
  }
  if (call.execution.shell) return 'ask-only';
  return 'deny';
}

/** `program`: the unknown is the program a command runs (`… | sh`), not where a word leads. */
type Guard = { kind: 'protected'; what: string; reason: string } | { kind: 'unknown'; word: string; why: string; program?: boolean };

/** A protected path the call writes or names (first), else a word of its command Deft cannot place. */
async function protectedTarget(call: ResolvedCall, places: Places, shell: ParsedShell | null): Promise<Guard | null> {
  for (const path of writtenPaths(call, places.workspace)) {
    const reason = protectedPathReason(path, places);
    if (reason) return { kind: 'protected', what: path, reason };
  }
  if (!shell) return null;
  // A command's relative words resolve against where it runs, and running inside .git/ is itself protected.
  const cwd = call.execution.shell?.cwd ?? places.workspace;
  const cwdReason = protectedPathReason(cwd, places);
  if (cwdReason) return { kind: 'protected', what: `the working directory ${cwd}`, reason: cwdReason };
  const parts = await commandsWithCwd(shell, { workspace: places.workspace, home: places.userHome, cwd, ...(places.fs ? { fs: places.fs } : {}) });
  const dataArguments = printedArgumentsAreData(parts.map((p) => p.part));
  let unknown: Guard | null = null;
  for (const { part, cwd: at } of parts) {
    const hit = protectedPathInCommand(part, { ...places, cwd: at }, { dataArguments });
    if (hit?.known) return { kind: 'protected', what: `"${hit.word}" in this command`, reason: hit.reason };
    if (hit) unknown ??= { kind: 'unknown', word: hit.word, why: hit.reason, ...(hit.program ? { program: true } : {}) };
  }
  return unknown;
}

/**
 * The files a call writes: its declared write accesses, else (for an edit that declares none) its `path` argument —
 * so a protected path is never missed because a tool left its accesses out.
 */
export function writtenPaths(call: ResolvedCall, workspace: string): string[] {
  const accesses = call.execution.accesses ?? [];
  const paths = accesses.flatMap((a) => (a.kind === 'file' && (a.operation === 'write' || a.operation === 'readwrite') ? [a.path] : []));
  if (paths.length || call.policy.approval !== 'edit') return paths;
  const path = (call.args as { path?: unknown } | null)?.path;
  if (typeof path !== 'string' || !path) return [];
  return [isAbsolute(path) ? path : resolve(workspace, path)];
}
