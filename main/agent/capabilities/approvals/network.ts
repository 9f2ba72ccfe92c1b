import { z } from 'zod';
import type { ConnectionRequest, CoreContext, SessionHandle } from '#contract/capability';
import type { NetworkVerdict } from '#contract/sandbox';
import { stateSlot } from '#contract/state';
import { domainAllows, domainEntryFor } from '#infra/sandbox/domains';
import type { ApprovalDesk } from './requests';

/** Hosts the user allowed for this session (entries in `sandbox.network.allowedDomains` form). */
export const sessionDomainsSlot = stateSlot('permissions.sessionDomains', z.array(z.string()), [] as string[]);

/**
 * Connections of sandboxed commands to hosts the settings do not allow: a host the user allowed for the
 * session goes through; in the window the user is asked (allow once, for this session, always for this
 * host); headless, it is refused with the setting that would allow it.
 */
export function networkApprovals(core: CoreContext, desk: ApprovalDesk) {
  return {
    authorizeConnection: async (session: SessionHandle, request: ConnectionRequest, signal: AbortSignal): Promise<NetworkVerdict> => {
      const entry = domainEntryFor(request.host, request.port);
      if (
        session
          .state(sessionDomainsSlot)
          .get()
          .some((allowed) => domainAllows(allowed, request.host, request.port))
      )
        return { allowed: true };
      if (!core.host.canAsk) {
        return {
          allowed: false,
          reason: `"${entry}" is not in "sandbox.network.allowedDomains" and deft run cannot ask; add it to ${desk.rules.files.local} to allow it`,
        };
      }
      const answer = await desk.requestApproval(
        session,
        {
          turnId: request.turnId ?? '',
          kind: 'network',
          toolName: 'Network',
          ...(request.callId ? { callId: request.callId } : {}),
          description: `Connect to ${request.host}:${request.port}${request.machine ? ` from ${request.machine}` : ''}`,
          display: { kind: 'network', host: request.host, port: request.port, command: request.label },
          reason: request.machine
            ? `A sandboxed command on ${request.machine} wants to reach ${request.host}:${request.port} from that machine's network (${request.host} as that machine sees it), which is not in "sandbox.network.allowedDomains".`
            : `A sandboxed command wants to reach ${request.host}:${request.port}, which is not in "sandbox.network.allowedDomains".`,
          approvalRule: entry,
        },
        signal,
      );
      if (answer === 'cancelled') return { allowed: false, reason: 'the request was cancelled before the user answered' };
      if (answer.decision !== 'approve')
        return {
          allowed: false,
          reason: answer.decision === 'reject' && answer.feedback ? `the user refused it: "${answer.feedback}"` : 'the user refused it',
        };
      return { allowed: true };
    },
    /** The user chose "for this session" or "always" for a host. */
    remember: async (session: SessionHandle, entry: string, scope: 'session' | 'always'): Promise<void> => {
      const domains = session.state(sessionDomainsSlot);
      if (!domains.get().includes(entry)) domains.set([...domains.get(), entry]);
      if (scope === 'always') await desk.rules.addLocalAllowedDomain(entry);
    },
  };
}
