import { isMissing } from '#contract/environment';
import type { RestoreEntry, RestoreProblem } from './restore';

/** The journal's file, in the store's git folder. */
export const REWIND_JOURNAL = 'deft-rewind.json';

/** A rewind that was interrupted (a crash, a killed Deft, a dropped connection) and finished when the store next opened. */
export interface RecoveredRewind {
  /** How many workspace paths the rewind put back. */
  paths: number;
  /** What could not be put back, and why. */
  problems: RestoreProblem[];
}

/** What the journal needs of a machine's files: node's fs for the local store, the Environment's SFTP calls for a remote one. */
export interface JournalFiles {
  readText(path: string): Promise<string>;
  /** Replace the file's content atomically (a temp file renamed over it). */
  replaceFile(path: string, data: string): Promise<void>;
  rm(path: string, options: { force: true }): Promise<void>;
}

/** The entries of a journal's text, or null when it is not one (damaged: it is removed and nothing is done). */
function parse(text: string): RestoreEntry[] | null {
  try {
    const journal = JSON.parse(text) as { version?: unknown; entries?: unknown };
    if (journal?.version !== 1 || !Array.isArray(journal.entries)) return null;
    const entries = journal.entries as Partial<RestoreEntry>[];
    const valid = entries.every((e) => typeof e?.path === 'string' && (e.mode === null || typeof e.mode === 'string') && typeof e.blob === 'string');
    return valid ? (entries as RestoreEntry[]) : null;
  } catch {
    return null;
  }
}

/**
 * The crash journal of a rewind, for both stores: the full list of paths to put back (each with its mode and blob, or
 * null to delete) is written atomically in the store's git folder before the workspace is touched, and removed once
 * every path is done. A store that opens and finds it finishes the rewind — running again what the entries say is
 * idempotent — so a rewind is never left half done silently. One mechanism for both stores, over `JournalFiles`: this
 * machine's files for `CheckpointStore`, SFTP for `RemoteCheckpointStore` (the journal lives on the workspace's
 * machine, beside its store).
 */
export class RewindJournal {
  /** A rewind of this process failed midway (its journal is left): the store's next operation finishes it first. */
  private interrupted = false;

  /** `file`: REWIND_JOURNAL in the store's git folder. */
  constructor(
    private readonly files: JournalFiles,
    private readonly file: string,
  ) {}

  /** Put the paths back with the journal around it: written before `apply`, removed after it returned. */
  async around(entries: readonly RestoreEntry[], apply: (entries: readonly RestoreEntry[]) => Promise<RestoreProblem[]>): Promise<RestoreProblem[]> {
    await this.files.replaceFile(this.file, JSON.stringify({ version: 1, entries }));
    let problems: RestoreProblem[];
    try {
      problems = await apply(entries);
    } catch (error) {
      this.interrupted = true;
      throw error;
    }
    await this.files.rm(this.file, { force: true });
    return problems;
  }

  /**
   * Finish this process's own rewind that failed midway (a connection that dropped and came back): null when there is
   * none; throws (and stays pending) while it still cannot be done. Call holding the store's lock, before other work.
   */
  async finishInterrupted(apply: (entries: readonly RestoreEntry[]) => Promise<RestoreProblem[]>): Promise<RecoveredRewind | null> {
    if (!this.interrupted) return null;
    const done = await this.recover(apply);
    this.interrupted = false;
    return done;
  }

  /** Finish a rewind the journal says was interrupted (null when there was none); a damaged journal is removed. */
  async recover(apply: (entries: readonly RestoreEntry[]) => Promise<RestoreProblem[]>): Promise<RecoveredRewind | null> {
    const text = await this.files.readText(this.file).catch((error: unknown) => (isMissing(error) ? null : ''));
    if (text === null) return null;
    const entries = parse(text);
    const problems = entries ? await apply(entries) : [];
    await this.files.rm(this.file, { force: true });
    return entries ? { paths: entries.length, problems } : null;
  }
}
