import type { SessionGrants } from '#protocol';
import type { CoreContext, SessionHandle } from '#contract/capability';
import type { CommandHandlers } from '#contract/commands';
import { CommandError } from '#contract/errors';
import { sessionDomainsSlot } from './network';
import { sessionRulesSlot } from './permissions';

function grantsOf(session: SessionHandle): SessionGrants {
  return { rules: [...session.state(sessionRulesSlot).get()], domains: [...session.state(sessionDomainsSlot).get()] };
}

/**
 * What the user allowed for one session only ("Allow for session": tool rules and network hosts), listed and taken
 * back from Settings → Permissions. A revoked grant no longer covers anything: the next call it covered asks again.
 * Commands of the window only; the model's tools cannot reach them.
 */
export function grantCommands(core: CoreContext): Pick<CommandHandlers, 'listSessionGrants' | 'revokeSessionGrant'> {
  return {
    listSessionGrants: async ({ sessionId }) => grantsOf(await core.session(sessionId)),
    revokeSessionGrant: async ({ sessionId, kind, value }) => {
      const session = await core.session(sessionId);
      const slot = session.state(kind === 'rule' ? sessionRulesSlot : sessionDomainsSlot);
      const current = slot.get();
      if (!current.includes(value)) throw new CommandError('not_found', `"${value}" is not allowed for this session (any more); nothing to take back.`);
      slot.set(current.filter((entry) => entry !== value));
      return grantsOf(session);
    },
  };
}
