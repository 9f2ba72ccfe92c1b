import type { RewindResult } from '#protocol';
import type { CommandHandlers } from '#contract/commands';
import { CommandError } from '#contract/errors';
import type { SessionStore } from '#infra/sessions/store';
import type { CapabilitySet } from '../capability-set';
import type { SessionPool } from '../session/pool';
import type { TurnRunner } from '../turn/runner';

export interface ForkCommandDeps {
  store: SessionStore;
  pool: SessionPool;
  turns: TurnRunner;
  capabilities: CapabilitySet;
  /** Delete a session as deleteSession does (a fork whose files could not be restored). */
  remove(sessionId: string): Promise<unknown>;
}

/**
 * forkSession: a new session with the original's conversation up to a point (infra/sessions/fork.ts), its
 * capabilities told (checkpoints restores the files when asked). A session running a turn forks what it has
 * finished; its files cannot be restored then (its turn is changing them).
 */
export function forkCommand(deps: ForkCommandDeps): Pick<CommandHandlers, 'forkSession'> {
  const { pool, turns } = deps;
  return {
    forkSession: async ({ sessionId, atPrompt, turnId, files }) => {
      const id = pool.checkedId(sessionId);
      if (atPrompt !== undefined && turnId !== undefined) throw new CommandError('invalid_request', 'Give atPrompt or turnId, not both.');
      const running = turns.runs.busy(id);
      if (running && files === 'restore')
        throw new CommandError(
          'busy',
          'A turn is running in that session and changing its files. Wait for it to end (or stop it), or fork with the files kept.',
        );
      await pool.settledUnload(id);
      // What the open session holds in memory reaches its log first: the fork is made from the log.
      await pool.loaded(id)?.session.flush();
      const { id: forkId, cut } = await deps.store.fork(id, { ...(atPrompt !== undefined ? { atPrompt } : {}), ...(turnId ? { turnId } : {}) }, running);
      try {
        const open = await pool.get(forkId);
        const from = { sessionId: id, turnId: cut.turnId };
        let restored: RewindResult | null = null;
        if (files === 'restore') {
          for (const capability of deps.capabilities.capabilities) {
            restored = (await capability.onSessionForked?.(open.handle, from, 'restore')) ?? null;
            if (restored) break;
          }
          if (!restored)
            throw new CommandError(
              'unsupported',
              'Files cannot be restored here: this workspace has no checkpoints (a remote folder has none yet). Fork with the files kept.',
            );
        } else {
          await deps.capabilities.each(async (capability) => void (await capability.onSessionForked?.(open.handle, from, 'keep')));
        }
        await open.session.flush();
        return { session: open.session.summary(), atPrompt: cut.atPrompt, restored };
      } catch (error) {
        await deps.remove(forkId).catch(() => {});
        throw error;
      }
    },
  };
}
