import type { CapabilityFactory } from '#contract/capability';
import { CommandError } from '#contract/errors';
import { deliverHandoff } from '#infra/worktrees/deliver';
import { draftMergeMessage } from '#infra/worktrees/draft';
import { worktreeCopyGlobs } from '#infra/worktrees/settings';
import { worktreesOf } from '#infra/worktrees/there';
import { WorktreeError, type Worktrees } from '#infra/worktrees/worktrees';

/**
 * The window's commands for Deft's git worktrees (infra/worktrees): list, create, merge, apply, discard, for the
 * repository of the workspace (its main checkout or one of its worktrees), on this machine or on a remote folder's
 * (infra/worktrees/there.ts: git and the worktrees there). What cannot be done is a readable refusal.
 */
export const worktreesCapability: CapabilityFactory = (core) => {
  const trees = () => worktreesOf(core.home, core.place);
  // The live-only read runs every few seconds: the repository (found with git) is looked up once, then kept.
  let known: Promise<Worktrees> | null = null;
  const knownTrees = () => {
    known ??= trees().catch((error: unknown) => {
      known = null;
      throw error;
    });
    return known;
  };
  const refusing = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof CommandError) throw error;
      throw new CommandError('invalid_request', error instanceof WorktreeError ? error.message : `Worktrees: ${(error as Error)?.message ?? String(error)}`);
    }
  };
  return {
    name: 'worktrees',
    commands: {
      listWorktrees: async () => {
        try {
          const repo = await trees();
          return { repoRoot: repo.repoRoot, worktrees: await repo.list() };
        } catch (error) {
          return { repoRoot: null, reason: (error as Error).message, worktrees: [] };
        }
      },
      worktreesLive: async () => {
        const repo = await knownTrees().catch(() => null);
        if (!repo) return { worktrees: [] };
        // The main checkout's sessions only matter to a window on one of its worktrees (read only there).
        const onWorktree = core.workspace !== repo.repoRoot;
        if (!onWorktree) return { worktrees: await repo.live() };
        const [worktrees, main] = await Promise.all([repo.live(), repo.mainSessionsLive()]);
        return { worktrees, main: main.live, mainSessions: main.sessions.map((s) => ({ ...s, title: s.title.slice(0, 300) })) };
      },
      worktreeChanges: ({ name }) => refusing(async () => (await trees()).changes(name)),
      createWorktree: ({ name, base }) =>
        refusing(async () => {
          const repo = await trees();
          const created = await repo.create({
            ...(name ? { name } : {}),
            ...(base ? { base } : {}),
            copy: await worktreeCopyGlobs(core.home, repo.repoRoot, repo.machine),
          });
          return { worktree: await repo.state(created.record.name), copied: created.copy.copied, skipped: created.copy.skipped, notes: created.notes };
        }),
      openWorktree: ({ name }) =>
        refusing(async () => {
          const record = await (await trees()).folderOf(name);
          // Where the host cannot open it (the CLI; the desktop app on a remote folder), where it is is said instead.
          if (!core.openFolder) return { opened: false, path: record.path };
          // The web host shows it in this window, beside the main checkout's core ('here'), a remote folder's too (a core
          // on a connection of its own there); the desktop app a local one in a window of its own.
          const where = await core.openFolder(record.path);
          return { opened: true, path: record.path, ...(where === 'here' ? { here: true } : {}) };
        }),
      mergeWorktree: ({ name, squash, message, expect }) =>
        refusing(async () =>
          (await trees()).merge(name, {
            ...(squash !== undefined ? { squash } : {}),
            ...(message !== undefined ? { message } : {}),
            ...(expect ? { expect } : {}),
          }),
        ),
      draftWorktreeMessage: ({ name, squash }) =>
        refusing(async () => {
          const repo = await trees();
          const record = await repo.get(name);
          const title = (await repo.state(name)).sessions.find((s) => s.title && s.title !== 'New session')?.title;
          return draftMergeMessage(record, {
            machine: repo.machine,
            squash: squash === true,
            ...(title ? { sessionTitle: title } : {}),
            ...(core.askModel ? { ask: (request) => core.askModel!(request) } : {}),
          });
        }),
      keepWorktreeBranch: ({ name, message }) => refusing(async () => (await trees()).keepBranch(name, message)),
      handWorktreeConflict: ({ name }) =>
        refusing(async () => {
          const repo = await trees();
          const handed = await repo.handConflict(name);
          if (handed.status !== 'conflict') return handed;
          // Sent to the worktree's session (its core takes it from the mailbox); when it cannot be, the prompt is shown to give.
          const sent = await deliverHandoff(core.home, { path: repo.machine.sessionKey((await repo.get(name)).path) }, handed.prompt).catch(() => null);
          return sent ? { ...handed, sent } : handed;
        }),
      applyWorktree: ({ name }) => refusing(async () => (await trees()).apply(name)),
      discardWorktree: ({ name, deleteBranch }) => refusing(async () => (await trees()).discard(name, { deleteBranch: deleteBranch === true })),
    },
  };
};
