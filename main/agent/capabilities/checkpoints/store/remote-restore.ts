import type { Environment } from '#contract/environment';
import type { GitResult } from './git';
import type { ScriptOptions } from './remote-git';
import { type RestoreEntry, type RestoreProblem, unsafePath } from './restore';

/** Bytes of paths put on one remote command line at most (a command line there has a size limit). */
const ARGS_BYTES = 64 * 1024;

/** Split paths into runs whose command line stays under ARGS_BYTES. */
export function chunks(paths: readonly string[]): string[][] {
  const out: string[][] = [];
  let run: string[] = [];
  let size = 0;
  for (const path of paths) {
    if (run.length && size + path.length > ARGS_BYTES) {
      out.push(run);
      [run, size] = [[], 0];
    }
    run.push(path);
    size += path.length + 4;
  }
  if (run.length) out.push(run);
  return out;
}

/** A script run in the store's places there (RemoteCheckpointStore's). */
export type StoreScript = (body: string, args?: readonly string[], options?: ScriptOptions) => Promise<GitResult>;

/**
 * Make each path of a workspace on another machine what its entry says (restore.ts's `applyEntries` for a remote
 * store): each is checked first over the Environment (no folder on its way is a link or a file, and it is not now a
 * folder); deletions run in one script there (with the folders they leave empty), then git's `checkout-index` writes
 * the rest from a private index of just these entries (links as links, modes as recorded). Running it again with the
 * same entries gives the same result: that is how an interrupted rewind is finished (journal.ts).
 */
export async function applyRemoteEntries(
  environment: Environment,
  workspace: string,
  script: StoreScript,
  entries: readonly RestoreEntry[],
): Promise<RestoreProblem[]> {
  const problems: RestoreProblem[] = [];
  const { join } = environment.path;
  const safe = async (path: string, deleting: boolean): Promise<boolean> => {
    if (unsafePath(path)) {
      problems.push({ path, reason: 'the path is not a safe workspace path' });
      return false;
    }
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const info = await environment.lstat(join(workspace, ...parts.slice(0, i))).catch(() => null);
      // A folder on its way is missing: nothing to delete, and git makes the folders for a write.
      if (!info) return !deleting;
      if (!info.isDirectory()) {
        problems.push({ path, reason: 'a folder in its path is now a link or a file' });
        return false;
      }
    }
    const self = await environment.lstat(join(workspace, path)).catch(() => null);
    if (self?.isDirectory()) {
      problems.push({ path, reason: 'it is now a folder' });
      return false;
    }
    return !deleting || self !== null;
  };
  const checked = async (list: RestoreEntry[], deleting: boolean) =>
    (await Promise.all(list.map(async (e) => ((await safe(e.path, deleting)) ? e : null)))).filter((e): e is RestoreEntry => e !== null);
  const deletes = await checked(
    entries.filter((e) => e.mode === null),
    true,
  );
  // A submodule's entry is neither written nor deleted.
  const writes = await checked(
    entries.filter((e) => e.mode !== null && e.mode !== '160000'),
    false,
  );
  const removeBody = 'for p in "$@"; do rm -f -- "$p" || exit 1; d=$(dirname -- "$p"); [ "$d" = . ] || rmdir -p -- "$d" 2>/dev/null; done; exit 0';
  for (const run of chunks(deletes.map((e) => e.path))) await script(removeBody, run);
  if (writes.length) {
    const body = [
      // A private index a dropped connection left behind.
      'rm -f -- "$GIT_DIR"/deft-restore-index.*',
      'i="$GIT_DIR/deft-restore-index.$$"',
      'GIT_INDEX_FILE=$i g update-index -z --index-info && GIT_INDEX_FILE=$i g checkout-index -f -a; rc=$?',
      'rm -f -- "$i"; exit $rc',
    ].join('\n');
    await script(body, [], { input: writes.map((e) => `${e.mode} ${e.blob}\t${e.path}\0`).join('') });
  }
  return problems;
}
