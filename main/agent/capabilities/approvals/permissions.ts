import { z } from 'zod';
import { type PermissionMode, permissionModeSchema } from '#protocol/schemas/approvals';
import { stateSlot } from '#contract/state';
import { reminder } from '#contract/facts';
import { type ModeLease, modeLeaseSlot, modeLeaseSchema } from '#contract/mode-lease';
import { CommandError } from '#contract/errors';
import type { CoreContext, Capability, SessionHandle } from '#contract/capability';
import type { Authorization, ResolvedCall } from '#contract/calls';
import { planOf } from './plan-state';
import { type Decision, decide } from './engine';
import type { ApprovalDesk, ApprovalRequest } from './requests';
import { MODE_SUMMARY, cancelledMessage, headlessDenial, rejectionMessage } from './messages';
import { RuleEditError, publicRules } from './rule-files';
import { networkApprovals } from './network';
import { type PermissionRule, parseRule, ruleApplies, shellArguments } from './rules';
import { coversEveryPart } from '#infra/policies/bash-rule';
import { parseShell } from '#infra/policies/shell-parse';
import { suggestShellRules } from '#infra/policies/suggest-rules';
import { relative } from 'node:path';
import { picomatchPackage } from '#infra/platform/on-demand';
import { matchPathSubject } from '#infra/policies/rule-match';
import type { ApprovalsOptions } from './options';

/** Deny rules that name Read (or match it by pattern: `*`, `Read*`). */
function readToolMatches(tool: string): boolean {
  return picomatchPackage()(tool, { dot: true })('Read');
}

/** The session's own mode; unset, the workspace's default mode applies. */
export const modeSlot = stateSlot<PermissionMode | null>('permissions.mode', () => permissionModeSchema().nullable(), null);
/** Rules the user approved for this session ("approve for session"). */
export const sessionRulesSlot = stateSlot('permissions.sessionRules', z.array(z.string()), [] as string[]);

/**
 * Permission modes and rules, and approvals: every call is decided before it runs; what needs the user
 * waits (the turn with it) until they answer in the window. Headless, such a call is refused with the
 * rule that would allow it.
 */
export function permissionRules(core: CoreContext, hub: ApprovalDesk, options: ApprovalsOptions = {}) {
  const network = networkApprovals(core, hub);
  // The host's rules for this run (deft run --disallowed-tools / --allowed-tools): parsed by the host already.
  const runDeny: PermissionRule[] = (options.deny ?? []).flatMap((text) => {
    const parsed = parseRule(text);
    return parsed.ok ? [{ ...parsed.rule, decision: 'deny' as const, source: 'run' as const, file: options.origin?.deny ?? 'this run' }] : [];
  });
  const runAllow = options.allow ?? [];

  /** The session's own mode: the one it was switched to, else the workspace's default. */
  async function ownModeOf(session: SessionHandle): Promise<PermissionMode> {
    return session.state(modeSlot).get() ?? (await hub.loadRules()).loaded.defaultMode ?? 'ask';
  }

  /** The mode in force: a lent one (a goal run without asking) over the session's own. */
  async function modeOf(session: SessionHandle): Promise<PermissionMode> {
    return session.state(modeLeaseSlot).get()?.mode ?? (await ownModeOf(session));
  }

  async function evaluate(session: SessionHandle, call: ResolvedCall): Promise<Decision> {
    const { loaded } = await hub.loadRules();
    return decide({
      call,
      mode: session.state(modeLeaseSlot).get()?.mode ?? session.state(modeSlot).get() ?? loaded.defaultMode ?? 'ask',
      rules: runDeny.length ? [...runDeny, ...loaded.rules] : loaded.rules,
      // Rules allowed for the run count as approved for the session: below deny rules, protected paths and the hard walls.
      sessionRules: runAllow.length ? [...session.state(sessionRulesSlot).get(), ...runAllow] : session.state(sessionRulesSlot).get(),
      plan: planOf(session),
      // An isolated sub-agent's call is judged in its worktree: the main checkout is outside it.
      places: call.workspace ? { ...hub.places, workspace: call.workspace } : hub.places,
      // An isolated sub-agent's commands run in its worktree's sandbox (SessionSandbox.inWorktree): the same settings.
      sandboxAutoAllow: await session.sandbox.autoAllow(),
    });
  }

  const stillNeeded = (session: SessionHandle) => async (request: ApprovalRequest) => (await evaluate(session, request.call!)).kind !== 'allow';

  async function askUser(session: SessionHandle, call: ResolvedCall, decision: Extract<Decision, { kind: 'ask' }>): Promise<Authorization> {
    const command = call.execution.shell?.command;
    const suggestedRules =
      decision.rememberable && !decision.exactOnly && command !== undefined
        ? suggestShellRules(call.name, command, await parseShell(command)).filter((r) => r !== call.execution.approvalRule)
        : [];
    const request: ApprovalRequest = {
      turnId: call.turnId,
      kind: call.execution.display.kind === 'goal_start' ? 'goal_start' : 'tool',
      toolName: call.name,
      callId: call.callId,
      description: call.execution.description,
      display: call.execution.display,
      reason: decision.reason,
      ...(decision.rememberable ? { approvalRule: call.execution.approvalRule } : {}),
      ...(decision.rememberable && call.execution.approvalScope ? { approvalScope: call.execution.approvalScope } : {}),
      ...(suggestedRules.length ? { suggestedRules } : {}),
      ...(call.agent ? { agent: call.agent } : {}),
      call,
    };
    const answer = await hub.requestApproval(session, request, call.signal);
    if (answer === 'cancelled') return { allowed: false, message: cancelledMessage(call) };
    if (answer.decision === 'approve') return answer.goalMode === 'yolo' ? { allowed: true, grantedMode: 'yolo' } : { allowed: true };
    return { allowed: false, message: rejectionMessage(call, answer.feedback) };
  }

  /** Tell the window that the session's mode changed (the model learns it from the mode fact), and let calls it now allows run. */
  async function announceMode(session: SessionHandle, previous: PermissionMode, mode: PermissionMode, reason?: string): Promise<void> {
    if (previous === mode) return;
    session.emit({ type: 'permission.mode.changed', mode, previous, ...(reason ? { reason } : {}) });
    await hub.settleCovered(session, stillNeeded(session));
  }

  /** A lent mode started or ended (contract/mode-lease.ts): the mode in force changes with it. */
  async function leaseChanged(session: SessionHandle, before: ModeLease | null): Promise<void> {
    const own = await ownModeOf(session);
    const lease = session.state(modeLeaseSlot).get();
    const reason = lease ? lease.reason : before?.endReason;
    await announceMode(session, before?.mode ?? own, lease?.mode ?? own, reason);
  }

  function rememberForSession(session: SessionHandle, added: readonly string[]): void {
    const rules = session.state(sessionRulesSlot);
    const fresh = added.filter((rule) => !rules.get().includes(rule));
    if (fresh.length) rules.set([...rules.get(), ...fresh]);
  }

  /** The rules to remember for an approval: the call's own, or the ones the user edited (which must still cover the call). */
  async function rulesToRemember(request: ApprovalRequest, edited: readonly string[] | undefined): Promise<string[]> {
    if (!edited) return [request.approvalRule!];
    const call = request.call;
    if (!call) throw new CommandError('invalid_request', 'Only a tool call can be remembered with edited rules.');
    const rules: PermissionRule[] = [];
    for (const text of edited) {
      const parsed = parseRule(text);
      if (!parsed.ok) throw new CommandError('invalid_request', `"${text}" is not a rule: ${parsed.message}.`);
      if (parsed.rule.tool !== call.name)
        throw new CommandError(
          'invalid_request',
          `"${text}" is not a ${call.name} rule: a rule remembered for this call must name ${call.name} itself, not another tool or a pattern of tools.`,
        );
      rules.push({ ...parsed.rule, decision: 'allow', source: 'session' });
    }
    const shell = call.execution.shell;
    const covers = shell
      ? await coversEveryPart(shellArguments(rules, call.name), shell.command, undefined, { ...hub.places, cwd: shell.cwd })
      : (await Promise.all(rules.map((r) => ruleApplies(r, call)))).some(Boolean);
    if (!covers)
      throw new CommandError(
        'invalid_request',
        `${edited.join(', ')} would not allow this very call; widen the rule (e.g. end it with :* for any arguments) or approve once.`,
      );
    return rules.map((r) => r.pattern);
  }

  async function trustedFolders() {
    return (await hub.rules.trust.list()).map((folder) => ({ ...folder, current: folder.path === core.place.id }));
  }

  return {
    authorizeConnection: network.authorizeConnection,
    readDenials: async (): Promise<(path: string) => string | null> => {
      const { loaded } = await hub.loadRules();
      const denies = [...runDeny, ...loaded.rules].filter((r) => r.decision === 'deny' && r.argument !== undefined && readToolMatches(r.tool));
      const workspace = hub.places.workspace;
      return (path) => {
        const inside = path === workspace || path.startsWith(`${workspace}/`);
        const forms = inside ? { absolute: path, relative: relative(workspace, path) } : { absolute: path };
        return denies.find((rule) => matchPathSubject(rule.argument!, forms))?.pattern ?? null;
      };
    },
    authorize: async (session: SessionHandle, call: ResolvedCall): Promise<Authorization> => {
      const decision = await evaluate(session, call);
      if (decision.kind === 'allow') return { allowed: true };
      if (decision.kind === 'deny') return { allowed: false, message: decision.message };
      if (options.approver && decision.rememberable && !decision.exactOnly) {
        const verdict = await options.approver(call);
        return verdict.allowed ? { allowed: true } : { allowed: false, message: rejectionMessage(call, verdict.message) };
      }
      if (!core.host.canAsk)
        return {
          allowed: false,
          message: headlessDenial(call, decision.reason, decision.rememberable, hub.rules.files, decision.exactOnly, options.origin?.allow),
        };
      return askUser(session, call, decision);
    },
    systemPrompt: () =>
      '## Permissions\nThe permission mode decides which calls run without asking; you are told the mode in force, and when the user switches it. A call the user rejects returns an error that may carry their feedback: follow it rather than retrying the same call.',
    facts: async (session: SessionHandle) => {
      const lease = session.state(modeLeaseSlot).get();
      const own = await ownModeOf(session);
      const text = lease
        ? `Permission mode: ${lease.mode} ${lease.reason} — ${MODE_SUMMARY[lease.mode]}. The session's own mode, ${own}, comes back when that ends.`
        : `Permission mode: ${own} — ${MODE_SUMMARY[own]}.`;
      return [{ key: 'permissions.mode', text: reminder(text) }];
    },
    onStateChanged: (session: SessionHandle, key: string, previous: unknown) => {
      if (key !== modeLeaseSlot.key) return;
      const before = modeLeaseSchema()
        .nullable()
        .safeParse(previous ?? null);
      void leaseChanged(session, before.success ? before.data : null).catch(() => {});
    },
    commands: {
      getPermissions: async ({ sessionId }) => {
        const { loaded } = await hub.loadRules();
        const mode = sessionId ? await modeOf(await core.session(sessionId)) : (loaded.defaultMode ?? 'ask');
        return { mode, permissions: publicRules(loaded) };
      },
      trustWorkspace: async ({ sessionId }) => {
        const session = sessionId ? await core.session(sessionId) : null;
        const previous = session ? await modeOf(session) : null;
        await hub.rules.trust.trust();
        const { loaded } = await hub.loadRules();
        // The folder's own default mode (listed in the banner the user answered) now applies to the session.
        if (session && previous) await announceMode(session, previous, await modeOf(session));
        return { permissions: publicRules(loaded) };
      },
      editPermissionRule: async (change) => {
        await asCommandError(() => hub.rules.edit(change));
        return { permissions: publicRules((await hub.loadRules()).loaded) };
      },
      setDefaultMode: async ({ mode }) => {
        await asCommandError(() => hub.rules.setUserDefaultMode(mode));
        const { loaded } = await hub.loadRules();
        return { mode: loaded.defaultMode ?? 'ask', permissions: publicRules(loaded) };
      },
      listTrustedFolders: async () => ({ folders: await trustedFolders() }),
      forgetFolderTrust: async ({ path }) => {
        if (!(await hub.rules.trust.forget(path))) throw new CommandError('not_found', `${path} is not in ${hub.rules.trust.path}.`);
        const { loaded } = await hub.loadRules();
        return { folders: await trustedFolders(), permissions: publicRules(loaded) };
      },
      setPermissionMode: async ({ sessionId, mode }) => {
        const session = await core.session(sessionId);
        const lent = session.state(modeLeaseSlot).get();
        const own = session.state(modeSlot).get();
        // In force before anything else is awaited: a prompt sent right after the switch (the same socket, next message)
        // must have its first tool call judged by it, not by the mode it replaced (seen under load in e2e).
        session.state(modeSlot).set(mode);
        // The user's choice ends a lent mode (a goal run without asking then asks as this mode does);
        // ending it announces the change.
        if (lent) session.state(modeLeaseSlot).set(null);
        else await announceMode(session, own ?? (await hub.loadRules()).loaded.defaultMode ?? 'ask', mode);
        return { mode };
      },
      answerApproval: async ({ sessionId, requestId, answer }) => {
        const session = await core.session(sessionId);
        const request = hub.approvals.get(sessionId, requestId);
        if (!request) throw new CommandError('not_found', 'This approval request is no longer waiting: it was answered already, or its turn stopped.');
        if (answer.decision === 'revise' && request.kind !== 'plan_review')
          throw new CommandError('invalid_request', 'Only a plan review can be answered with "revise".');
        if (answer.decision === 'approve' && answer.goalMode && request.kind !== 'goal_start')
          throw new CommandError('invalid_request', 'Only a goal start can be answered with how the goal runs (goalMode).');
        if (answer.decision === 'approve' && answer.scope !== 'once' && !request.approvalRule) {
          throw new CommandError('invalid_request', 'This call can only be approved once: it touches a protected path, or it is not a tool call.');
        }
        if (answer.decision === 'approve' && answer.rules && answer.scope === 'once')
          throw new CommandError('invalid_request', 'Rules are remembered only when approving for the session or always.');
        if (answer.decision === 'approve' && answer.selectedLabel !== undefined && !request.options?.includes(answer.selectedLabel)) {
          throw new CommandError('invalid_request', `"${answer.selectedLabel}" is not one of the options offered.`);
        }
        let warning: string | undefined;
        if (request.kind === 'network') {
          if (answer.decision === 'approve' && answer.scope !== 'once' && request.approvalRule) {
            try {
              await network.remember(session, request.approvalRule, answer.scope);
            } catch (error) {
              warning = `Allowed for this session, but the host could not be saved: ${(error as Error).message}`;
            }
          }
        } else if (answer.decision === 'approve' && answer.scope !== 'once' && request.approvalRule) {
          const remembered = await rulesToRemember(request, answer.rules);
          rememberForSession(session, remembered);
          if (answer.scope === 'always') {
            try {
              for (const rule of remembered) await hub.rules.addLocalAllowRule(rule);
              await hub.loadRules();
            } catch (error) {
              warning = `Approved for this session, but the rule could not be saved: ${(error as Error).message}`;
            }
          }
        }
        hub.approvals.settle(sessionId, requestId, answer);
        if (answer.decision === 'approve' && answer.scope !== 'once') await hub.settleCovered(session, stillNeeded(session));
        return warning ? { ok: true as const, warning } : { ok: true as const };
      },
    },
  } satisfies Omit<Capability, 'name'>;
}

async function asCommandError(work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (error instanceof RuleEditError) throw new CommandError(error.code, error.message);
    throw error;
  }
}
