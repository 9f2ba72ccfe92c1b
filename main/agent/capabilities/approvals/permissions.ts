import { z } from 'zod';
import { PermissionMode } from '../../../../protocol';
import { stateSlot } from '../../contract/state';
import { reminder } from '../../contract/facts';
import { CommandError } from '../../contract/errors';
import type { CoreContext, Feature, SessionHandle } from '../../contract/feature';
import type { Authorization, ResolvedCall } from '../../contract/calls';
import { planOf } from './plan-state';
import { type Decision, decide } from './engine';
import type { ApprovalDesk, ApprovalRequest } from './requests';
import { MODE_SUMMARY, cancelledMessage, headlessDenial, rejectionMessage } from './messages';
import { publicRules } from './rule-files';
import { networkApprovals } from './network';
import { relative } from 'node:path';
import picomatch from 'picomatch';
import { matchPathSubject } from '../../infra/policies/rule-match';

/** Deny rules that name Read (or match it by pattern: `*`, `Read*`). */
function readToolMatches(tool: string): boolean {
  return picomatch(tool, { dot: true })('Read');
}

/** The session's own mode; unset, the workspace's default mode applies. */
export const modeSlot = stateSlot<PermissionMode | null>('permissions.mode', PermissionMode.nullable(), null);
/** Rules the user approved for this session ("approve for session"). */
export const sessionRulesSlot = stateSlot('permissions.sessionRules', z.array(z.string()), [] as string[]);

/**
 * Permission modes and rules, and approvals: every call is decided before it runs; what needs the user
 * waits (the turn with it) until they answer in the window. Headless, such a call is refused with the
 * rule that would allow it.
 */
export function permissionRules(core: CoreContext, hub: ApprovalDesk) {
  const network = networkApprovals(core, hub);

  async function modeOf(session: SessionHandle): Promise<PermissionMode> {
    return session.state(modeSlot).get() ?? (await hub.loadRules()).loaded.defaultMode ?? 'ask';
  }

  async function evaluate(session: SessionHandle, call: ResolvedCall): Promise<Decision> {
    const { loaded } = await hub.loadRules();
    return decide({
      call,
      mode: session.state(modeSlot).get() ?? loaded.defaultMode ?? 'ask',
      rules: loaded.rules,
      sessionRules: session.state(sessionRulesSlot).get(),
      plan: planOf(session),
      places: hub.places,
      sandboxAutoAllow: await session.sandbox.autoAllow(),
    });
  }

  const stillNeeded = (session: SessionHandle) => async (request: ApprovalRequest) => (await evaluate(session, request.call!)).kind !== 'allow';

  async function askUser(session: SessionHandle, call: ResolvedCall, decision: Extract<Decision, { kind: 'ask' }>): Promise<Authorization> {
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
      ...(call.agent ? { agent: call.agent } : {}),
      call,
    };
    const answer = await hub.requestApproval(session, request, call.signal);
    if (answer === 'cancelled') return { allowed: false, message: cancelledMessage(call) };
    if (answer.decision === 'approve') return { allowed: true };
    return { allowed: false, message: rejectionMessage(call, answer.feedback) };
  }

  /** Tell the window that the session's mode changed (the model learns it from the mode fact), and let calls it now allows run. */
  async function announceMode(session: SessionHandle, previous: PermissionMode, mode: PermissionMode): Promise<void> {
    if (previous === mode) return;
    session.emit({ type: 'permission.mode.changed', mode, previous });
    await hub.settleCovered(session, stillNeeded(session));
  }

  function rememberForSession(session: SessionHandle, rule: string): void {
    const rules = session.state(sessionRulesSlot);
    if (!rules.get().includes(rule)) rules.set([...rules.get(), rule]);
  }

  return {
    authorizeConnection: network.authorizeConnection,
    readDenials: async (): Promise<(path: string) => string | null> => {
      const { loaded } = await hub.loadRules();
      const denies = loaded.rules.filter((r) => r.decision === 'deny' && r.argument !== undefined && readToolMatches(r.tool));
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
      if (core.host === 'cli') return { allowed: false, message: headlessDenial(call, decision.reason, decision.rememberable, hub.rules.files) };
      return askUser(session, call, decision);
    },
    systemPrompt: () =>
      '## Permissions\nThe permission mode decides which calls run without asking; you are told the mode in force, and when the user switches it. A call the user rejects returns an error that may carry their feedback: follow it rather than retrying the same call.',
    facts: async (session: SessionHandle) => {
      const mode = await modeOf(session);
      return [{ key: 'permissions.mode', text: reminder(`Permission mode: ${mode} — ${MODE_SUMMARY[mode]}.`) }];
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
      setPermissionMode: async ({ sessionId, mode }) => {
        const session = await core.session(sessionId);
        const previous = await modeOf(session);
        session.state(modeSlot).set(mode);
        await announceMode(session, previous, mode);
        return { mode };
      },
      answerApproval: async ({ sessionId, requestId, answer }) => {
        const session = await core.session(sessionId);
        const request = hub.approvals.get(sessionId, requestId);
        if (!request) throw new CommandError('not_found', 'This approval request is no longer waiting: it was answered already, or its turn stopped.');
        if (answer.decision === 'revise' && request.kind !== 'plan_review') throw new CommandError('invalid_request', 'Only a plan review can be answered with "revise".');
        if (answer.decision === 'approve' && answer.scope !== 'once' && !request.approvalRule) {
          throw new CommandError('invalid_request', 'This call can only be approved once: it touches a protected path, or it is not a tool call.');
        }
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
          rememberForSession(session, request.approvalRule);
          if (answer.scope === 'always') {
            try {
              await hub.rules.addLocalAllowRule(request.approvalRule);
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
  } satisfies Omit<Feature, 'name'>;
}
