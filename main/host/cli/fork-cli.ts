import type { DeftCore } from '#runtime/core';
import { CommandError } from '#contract/errors';

/** `deft run --fork ID [--at N] [--fork-files keep|restore]`, checked: what to fork, or why the flags are wrong. */
export interface ForkFlags {
  sessionId: string;
  atPrompt?: number;
  files: 'keep' | 'restore';
}

/** The fork the flags ask for (null: none); throws a message for a usage error. */
export function forkFlags(values: {
  fork?: string;
  at?: string;
  'fork-files'?: string;
  session?: string;
  continue?: boolean;
  worktree?: string;
}): ForkFlags | null {
  if (values.fork === undefined) {
    if (values.at !== undefined || values['fork-files'] !== undefined) throw new Error('--at and --fork-files go with --fork SESSION_ID');
    return null;
  }
  if (values.session !== undefined || values.continue) throw new Error('--fork starts a new session from another: use it without --session or --continue');
  if (values.worktree !== undefined) throw new Error('--fork cannot be combined with --worktree yet');
  const files = values['fork-files'] ?? 'keep';
  if (files !== 'keep' && files !== 'restore') throw new Error('--fork-files must be keep or restore');
  const at = values.at;
  const n = at !== undefined && /^\d+$/.test(at.trim()) ? Number(at) : NaN;
  if (at !== undefined && (!Number.isSafeInteger(n) || n < 1)) throw new Error('--at must be a prompt number, counted from 1 as "deft checkpoints" lists them');
  return { sessionId: values.fork, ...(at !== undefined ? { atPrompt: n } : {}), files };
}

/**
 * Make the fork; resolves to the new session's id and a line for stderr. A fork the session cannot give (no such
 * session, a prompt out of range) is a usage error (`usage` true); anything else a runtime one.
 */
export async function forkForRun(core: DeftCore, flags: ForkFlags): Promise<{ sessionId: string; note: string } | { error: string; usage: boolean }> {
  try {
    const { session, atPrompt, restored } = await core.handlers.forkSession(flags);
    const files = restored
      ? `; files restored: ${restored.restored.length} restored, ${restored.removed.length} removed, ${restored.broughtBack.length} brought back` +
        (restored.keptOutside.length ? `, ${restored.keptOutside.length} changed outside its turns kept` : '') +
        ` (undo: deft rewind --session ${session.id} --undo)`
      : '';
    return { sessionId: session.id, note: `deft: forked session ${flags.sessionId} after prompt ${atPrompt} into ${session.id}${files}\n` };
  } catch (error) {
    const code = error instanceof CommandError ? error.code : 'internal';
    return { error: (error as Error).message, usage: code === 'not_found' || code === 'invalid_request' };
  }
}
