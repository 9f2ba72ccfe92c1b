import { existsSync, realpathSync } from 'node:fs';
import { type LiveState, isRunning, liveState } from '../sessions/running';
import { SessionStore } from '../sessions/store';
import { branchExists, listedWorktrees, mainCheckout, revParse, statusPaths } from './checkout';
import { type CopyReport, copyUntracked } from './copy';
import { handoffWaiting } from './deliver';
import { type WorktreeMachine, localMachine } from './machine';
import { type WorktreeChanges, worktreeChanges } from './diff';
import { type Handoff, handConflictToWorktree } from './handoff';
import { MovedError, applyWorktree, commitPending, mergeWorktree, type ApplyOutcome, type MergeOptions, type MergeOutcome } from './merge';
import { BRANCH_PREFIX, branchProblem, generatedName, hasControl, nameProblem } from './names';
import { type WorktreeRecord, WorktreeRecords } from './records';
import { git, gitText, nulList } from './run';

export interface CreateOptions {
  /** The worktree's name (a folder and, by default, `deft/<name>`); generated from `hint` when absent. */
  name?: string;
  /** Words to make a name from (a prompt, a description). */
  hint?: string;
  /** The branch to create (default `deft/<name>`). */
  branch?: string;
  /** What to start from: a branch, tag or commit (default: the main checkout's HEAD). */
  base?: string;
  /** Globs of untracked files to copy in (`worktree.copy`). */
  copy?: readonly string[];
  /** Made for an isolated sub-agent of this session (removed with it when nothing would be lost). */
  session?: string;
}

export interface Created {
  record: WorktreeRecord;
  copy: CopyReport;
  /** What the worktree does not have that the checkout may (submodules, LFS content). */
  notes: string[];
}

export interface WorktreeState extends WorktreeRecord {
  /** `ok`, or `missing` when its folder is gone (`cleanup` forgets it). */
  state: 'ok' | 'missing';
  /** Files that differ from where it started: committed on its branch or not. */
  changedFiles: string[];
  /** Commits on its branch that its base branch does not have. */
  ahead: number;
  /** Commits on its base branch since it started that it does not have. */
  behind: number;
  /** Uncommitted changes in it. */
  dirty: boolean;
  /** Sessions that ran in it, newest first. */
  sessions: Array<{ id: string; title: string; updatedAt: number; live: LiveState }>;
  /** Its sessions together: `waiting` when one waits for the user, else `running` when one runs, else `idle`. */
  live: LiveState;
  /** The session a handed-over conflict waits for in the worktree's mailbox, not taken by any Deft yet (deliver.ts). */
  conflictWaiting?: string;
}

/** A new worktree's git dir and common git dir, as git reports them (absolute, real paths). */
async function gitFolders(m: WorktreeMachine, path: string): Promise<{ gitDir: string; commonDir: string }> {
  const [gitDir, commonDir] = (await gitText(m, path, ['rev-parse', '--path-format=absolute', '--git-dir', '--git-common-dir'])).split('\n');
  if (!gitDir || !commonDir) throw new WorktreeError('git did not say where the new worktree keeps its git folders.');
  return { gitDir: await m.realpath(gitDir), commonDir: await m.realpath(commonDir) };
}

/** Sessions together: `waiting` when one waits for the user, else `running` when one runs, else `idle`. */
function overall(sessions: ReadonlyArray<{ live: LiveState }>): LiveState {
  return sessions.some((s) => s.live === 'waiting') ? 'waiting' : sessions.some((s) => s.live === 'running') ? 'running' : 'idle';
}

export class WorktreeError extends Error {
  override name = 'WorktreeError';
}

/**
 * The worktrees Deft makes for one repository: under `<Deft's folder>/worktrees/<repo>-<hash>/` on the machine the
 * repository is on (`machine`: this one, under Deft's home; another, under `~/.deft` there), never in the repository's
 * own folder. Sessions stay on this machine, under `home`, keyed by `machine.sessionKey` of their folder.
 */
export class Worktrees {
  readonly records: WorktreeRecords;

  private constructor(
    readonly home: string,
    /** The repository's main checkout (a path on `machine`). */
    readonly repoRoot: string,
    /** Where the repository is: git runs there, the worktrees and their records are made there. */
    readonly machine: WorktreeMachine,
  ) {
    this.records = new WorktreeRecords(machine, machine.deftFolder, repoRoot);
  }

  /**
   * The worktrees of the repository `from` is in (its main checkout or one of its worktrees): on this machine, or —
   * with `machine` (environmentMachine) — on the machine of a remote folder, `from` a path there.
   */
  static async of(home: string, from: string, machine?: WorktreeMachine): Promise<Worktrees> {
    const realHome = existsSync(home) ? realpathSync(home) : home;
    const m = machine ?? localMachine(realHome);
    return new Worktrees(realHome, await mainCheckout(m, from).catch((error: Error) => Promise.reject(new WorktreeError(error.message))), m);
  }

  private get m(): WorktreeMachine {
    return this.machine;
  }

  /** The key this machine keeps the sessions of a folder of the repository's machine under. */
  private sessionsOfFolder(path: string): SessionStore {
    return new SessionStore(this.home, this.m.sessionKey(path));
  }

  async create(options: CreateOptions = {}): Promise<Created> {
    const name = options.name ?? generatedName(options.hint);
    const problem = nameProblem(name);
    if (problem) throw new WorktreeError(problem);
    const branch = options.branch ?? `${BRANCH_PREFIX}${name}`;
    const badBranch = branchProblem(branch) ?? (await this.refFormatProblem(branch));
    if (badBranch) throw new WorktreeError(badBranch);
    const path = this.records.pathOf(name);
    if ((await this.m.exists(path)) || (await this.records.read(name)))
      throw new WorktreeError(`a worktree named "${name}" exists already (deft worktrees lists them).`);
    if (await branchExists(this.m, this.repoRoot, branch)) throw new WorktreeError(`the branch "${branch}" exists already: give another name or branch.`);
    const { baseCommit, baseBranch } = await this.resolveBase(options.base);
    await this.m.mkdir(this.records.dir, 0o700);
    const record: WorktreeRecord = {
      name,
      branch,
      baseBranch,
      baseCommit,
      repoRoot: this.repoRoot,
      path,
      createdAt: Date.now(),
      copied: [],
      ...(options.session ? { session: options.session } : {}),
    };
    // A failed add made nothing (git checks the branch and the folder first): nothing to undo, and what another
    // process made under the same name meanwhile is not ours to remove.
    await git(this.m, this.repoRoot, ['worktree', 'add', '--quiet', '--no-track', '-b', branch, path, baseCommit]).catch((error: Error) => {
      throw new WorktreeError(`the worktree could not be made: ${error.message}`);
    });
    try {
      Object.assign(record, await gitFolders(this.m, path));
      const copy = await copyUntracked(this.m, this.repoRoot, path, options.copy ?? []);
      record.copied = copy.copied;
      await this.records.write(record);
      return { record, copy, notes: await this.notes(path) };
    } catch (error) {
      await this.removeQuietly(record, true);
      throw error instanceof WorktreeError ? error : new WorktreeError(`the worktree could not be made: ${(error as Error).message}`);
    }
  }

  async get(name: string): Promise<WorktreeRecord> {
    const problem = nameProblem(name);
    if (problem) throw new WorktreeError(problem);
    const record = await this.records.read(name);
    if (!record) throw new WorktreeError(`no worktree named "${name}" in this repository (deft worktrees lists them).`);
    return record;
  }

  /**
   * The folder to open worktree `name` in (a window, or a core beside the main checkout's): only the one Deft made for
   * it under its home — never a path a record was edited to name — and only while it is there.
   */
  async folderOf(name: string): Promise<WorktreeRecord> {
    const record = await this.get(name);
    if (record.path !== this.records.pathOf(name)) throw new WorktreeError(`the record of worktree "${name}" names another folder; it is not opened.`);
    if (!(await this.m.exists(record.path))) throw new WorktreeError(`the folder of worktree "${name}" is gone; deft worktrees cleanup forgets it.`);
    const linked = await this.linkProblem(record);
    if (linked) throw new WorktreeError(`${linked}: it is not opened.`);
    return record;
  }

  async list(): Promise<WorktreeState[]> {
    const listed = await listedWorktrees(this.m, this.repoRoot);
    const registered = new Set(listed.filter((w) => !w.prunable).map((w) => w.path));
    return Promise.all(
      (await this.records.list()).map(async (record) => this.stateOf(record, registered.has(record.path) && (await this.m.exists(record.path)))),
    );
  }

  async state(name: string): Promise<WorktreeState> {
    const record = await this.get(name);
    const listed = await listedWorktrees(this.m, this.repoRoot);
    return this.stateOf(record, listed.some((w) => w.path === record.path && !w.prunable) && (await this.m.exists(record.path)));
  }

  /**
   * Only what its sessions are doing now (their `running.json` marks), with no git at all: cheap enough for the
   * sidebar's poll. The git-derived figures (`list`) are read when something changed.
   */
  async live(): Promise<Array<Pick<WorktreeState, 'name' | 'sessions' | 'live' | 'conflictWaiting'>>> {
    return Promise.all(
      (await this.records.list()).map(async (record) => {
        const sessions = await this.sessionsOf(record);
        return { name: record.name, sessions, live: overall(sessions), ...(await this.handoffOf(record)) };
      }),
    );
  }

  /**
   * What the main checkout's sessions are doing now (their marks, no git): a window showing a worktree says so beside
   * its way back, so a question waiting there is not missed.
   */
  async mainLive(): Promise<LiveState> {
    return (await this.mainSessionsLive()).live;
  }

  /**
   * The same, session by session: the main checkout's sessions that run or wait now (at most `limit`, waiting first),
   * with their titles — read only for those (polled while a worktree is shown: the others' metas are not read).
   */
  async mainSessionsLive(limit = 20): Promise<{ live: LiveState; sessions: Array<{ id: string; title: string; live: LiveState }> }> {
    const store = this.sessionsOfFolder(this.repoRoot);
    const marks = await Promise.all((await store.ids()).map(async (id) => ({ id, live: await liveState(store.dirOf(id)) })));
    const busy = marks.filter((m) => m.live !== 'idle').sort((a, b) => (a.live === b.live ? 0 : a.live === 'waiting' ? -1 : 1));
    const sessions = await Promise.all(
      busy.slice(0, limit).map(async (m) => ({ id: m.id, title: (await store.readMeta(m.id))?.title ?? 'A session', live: m.live })),
    );
    return { live: overall(marks), sessions };
  }

  /** What it changed against its base (committed or not), file by file with the hunks: its *Changes* view. */
  async changes(name: string): Promise<WorktreeChanges> {
    const record = await this.get(name);
    // git runs in its folder: only the one Deft made for it, never a folder a record was edited to name.
    if (record.path !== this.records.pathOf(name)) throw new WorktreeError(`the record of worktree "${name}" names another folder; its changes are not read.`);
    return worktreeChanges(this.m, record);
  }

  /** Merge (or squash) its branch onto its base branch: its uncommitted changes are committed on its branch first. */
  merge(name: string, options: MergeOptions = {}): Promise<MergeOutcome> {
    return this.inOwnFolder(name, 'nothing was merged').then((record) =>
      mergeWorktree(this.m, record, options).catch((error: Error) => {
        throw error instanceof MovedError ? new WorktreeError(error.message) : error;
      }),
    );
  }

  /**
   * Its record, when git may run in its folder: the one Deft made for it, not a folder an edited record names nor a
   * link put in its place (git would commit in whatever checkout the link leads to).
   */
  private async inOwnFolder(name: string, nothing: string): Promise<WorktreeRecord> {
    const record = await this.get(name);
    await this.refuseForeignFolder(record, `${nothing}; look at it yourself.`);
    return record;
  }

  /** Commit what it has not committed on its branch (copied files left out). Returns whether there was anything. */
  commit(name: string, message: string): Promise<boolean> {
    return this.inOwnFolder(name, 'nothing was committed').then(async (record) => (await commitPending(this.m, record, message)).committed);
  }

  /**
   * Create branch only: commit what it has not committed on its branch, then remove the worktree and keep the branch.
   * Refused (nothing changed) while a session runs there.
   */
  async keepBranch(name: string, message?: string): Promise<{ branch: string; committed: boolean; removed: string }> {
    const record = await this.inOwnFolder(name, 'nothing was committed or removed');
    await this.refuseWhileRunning(name, 'turned into a branch');
    const { committed } = await commitPending(this.m, record, message?.trim() || `Deft worktree ${record.name}: the session's changes`);
    const { removed } = await this.discard(name, { deleteBranch: false });
    return { branch: record.branch, committed, removed };
  }

  /**
   * Hand a merge conflict to the worktree: its base branch merged into its branch there (after committing what it had
   * not), so the markers are in the worktree only. Refused while a session runs there.
   */
  async handConflict(name: string): Promise<Handoff> {
    const record = await this.get(name);
    if (record.path !== this.records.pathOf(name)) throw new WorktreeError(`the record of worktree "${name}" names another folder; nothing was merged.`);
    await this.refuseWhileRunning(name, 'given the conflict');
    return handConflictToWorktree(this.m, record).catch((error: Error) => {
      throw error instanceof WorktreeError ? error : new WorktreeError(error.message);
    });
  }

  /** Its changes as uncommitted changes in the main checkout. */
  apply(name: string): Promise<ApplyOutcome> {
    return this.inOwnFolder(name, 'nothing was applied').then((record) => applyWorktree(this.m, record));
  }

  /** Sessions with a turn running in the worktree now (in any Deft process on this machine), newest first. */
  async runningSessions(name: string): Promise<Array<{ id: string; title: string }>> {
    const record = await this.get(name);
    const store = this.sessionsOfFolder(record.path);
    const sessions = await store.list();
    const running = await Promise.all(sessions.map((m) => isRunning(store.dirOf(m.id))));
    return sessions.filter((_, i) => running[i]).map((m) => ({ id: m.id, title: m.title }));
  }

  /** Remove the worktree (its changes with it) and, when asked, its branch. Refused while a session runs there. */
  async discard(name: string, options: { deleteBranch?: boolean } = {}): Promise<{ removed: string; branchDeleted: boolean }> {
    const record = await this.get(name);
    await this.refuseWhileRunning(name, 'discarded');
    await this.refuseForeignFolder(record);
    await this.removeQuietly(record, options.deleteBranch === true);
    if (await this.m.exists(record.path)) throw new WorktreeError(`${record.path} could not be removed; remove it yourself, then run deft worktrees cleanup.`);
    const branchDeleted = options.deleteBranch === true && !(await branchExists(this.m, this.repoRoot, record.branch));
    return { removed: record.path, branchDeleted };
  }

  /**
   * Only the folder Deft made for the worktree is ever removed: not a folder an edited record names, not a link put in
   * its place (git and rm would reach where it points: another checkout, anything), not a folder reached through one.
   * A folder already gone is fine (its git registration and record go).
   */
  private async refuseForeignFolder(
    record: WorktreeRecord,
    nothing = 'nothing was removed; look at it yourself, then run deft worktrees cleanup.',
  ): Promise<void> {
    if (record.path !== this.records.pathOf(record.name))
      throw new WorktreeError(`the record of worktree "${record.name}" names another folder (${record.path}): ${nothing}`);
    const linked = await this.linkProblem(record);
    if (linked) throw new WorktreeError(`${linked}: ${nothing}`);
  }

  /** Why the worktree's folder is not the one Deft made (a link, or a file, in its place; reached through a link), or null. */
  private async linkProblem(record: WorktreeRecord): Promise<string | null> {
    const entry = await this.m.look(record.path);
    if (!entry) return null;
    if (entry.kind !== 'dir') return `${record.path} is not a folder (a link, or a file, was put there)`;
    const real = await this.m.realpath(record.path);
    if (real !== this.m.path.join(await this.m.realpath(this.records.dir), record.name)) return `${record.path} is reached through a link (it is ${real})`;
    return null;
  }

  private async refuseWhileRunning(name: string, what: string): Promise<void> {
    const running = await this.runningSessions(name);
    if (!running.length) return;
    const named = running.map((s) => `"${s.title}" (${s.id})`).join(', ');
    const one = running.length === 1;
    throw new WorktreeError(
      `worktree "${name}" was not ${what}: ${one ? 'a session is' : 'sessions are'} running in it — ${named}. Stop ${one ? 'it' : 'them'} or wait until ${one ? 'it ends' : 'they end'}, then try again.`,
    );
  }

  /** `git worktree prune`, then forget worktrees whose folder is gone. Returns the names forgotten. */
  async cleanup(): Promise<string[]> {
    await git(this.m, this.repoRoot, ['worktree', 'prune']);
    const listed = new Set((await listedWorktrees(this.m, this.repoRoot)).map((w) => w.path));
    const forgotten: string[] = [];
    for (const record of await this.records.list()) {
      if (listed.has(record.path) || (await this.m.exists(record.path))) continue;
      await this.records.remove(record.name);
      forgotten.push(record.name);
    }
    return forgotten;
  }

  private async stateOf(record: WorktreeRecord, present: boolean): Promise<WorktreeState> {
    const sessions = await this.sessionsOf(record);
    const live = overall(sessions);
    const baseRef = record.baseBranch && (await branchExists(this.m, this.repoRoot, record.baseBranch)) ? `refs/heads/${record.baseBranch}` : record.baseCommit;
    const branchRef = (await branchExists(this.m, this.repoRoot, record.branch)) ? `refs/heads/${record.branch}` : null;
    const count = async (range: string) => Number((await git(this.m, this.repoRoot, ['rev-list', '--count', range])).stdout.toString().trim()) || 0;
    const ahead = branchRef ? await count(`${baseRef}..${branchRef}`) : 0;
    const behind = branchRef ? await count(`${branchRef}..${baseRef}`) : 0;
    if (!present) return { ...record, state: 'missing', changedFiles: [], ahead, behind, dirty: false, sessions, live };
    const handoff = await this.handoffOf(record);
    const copied = new Set(record.copied);
    const committed = nulList((await git(this.m, record.path, ['diff', '--name-only', '-z', '--no-renames', record.baseCommit, 'HEAD'])).stdout);
    const pending = (await statusPaths(this.m, record.path)).filter((p) => !copied.has(p));
    const changedFiles = [...new Set([...committed, ...pending])].sort();
    return { ...record, state: 'ok', changedFiles, ahead, behind, dirty: pending.length > 0, sessions, live, ...handoff };
  }

  /** `conflictWaiting` when a handed-over conflict waits in its mailbox (its folder's sessions' mailbox). */
  private async handoffOf(record: WorktreeRecord): Promise<Pick<WorktreeState, 'conflictWaiting'>> {
    const waiting = await handoffWaiting(this.home, { path: this.m.sessionKey(record.path) }).catch(() => null);
    return waiting ? { conflictWaiting: waiting } : {};
  }

  private async sessionsOf(record: WorktreeRecord): Promise<WorktreeState['sessions']> {
    const store = this.sessionsOfFolder(record.path);
    return Promise.all((await store.list()).map(async (m) => ({ id: m.id, title: m.title, updatedAt: m.updatedAt, live: await liveState(store.dirOf(m.id)) })));
  }

  private async refFormatProblem(branch: string): Promise<string | null> {
    const checked = await git(this.m, this.repoRoot, ['check-ref-format', '--branch', branch], { okCodes: [0, 1, 128] });
    return checked.exitCode === 0 ? null : `"${branch}" is not a valid branch name (git check-ref-format).`;
  }

  private async resolveBase(base: string | undefined): Promise<{ baseCommit: string; baseBranch: string | null }> {
    if (base === undefined) {
      const head = await revParse(this.m, this.repoRoot, 'HEAD^{commit}');
      if (!head) throw new WorktreeError('the repository has no commit yet: commit once, then make a worktree.');
      const branch = await git(this.m, this.repoRoot, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { okCodes: [0, 1] });
      return { baseCommit: head, baseBranch: branch.exitCode === 0 ? branch.stdout.toString().trim() || null : null };
    }
    if (!base.trim() || base.startsWith('-') || /\s/.test(base) || hasControl(base)) throw new WorktreeError(`"${base}" is not a branch, tag or commit.`);
    const commit = await revParse(this.m, this.repoRoot, `${base}^{commit}`);
    if (!commit) throw new WorktreeError(`"${base}" is not a branch, tag or commit of this repository.`);
    return { baseCommit: commit, baseBranch: (await branchExists(this.m, this.repoRoot, base)) ? base : null };
  }

  private async notes(path: string): Promise<string[]> {
    const notes: string[] = [];
    if (await this.m.exists(this.m.path.join(path, '.gitmodules')))
      notes.push('the repository has submodules: they are not checked out in the worktree (Deft fetches nothing).');
    const attributes = (await this.m.readText(this.m.path.join(path, '.gitattributes'))) ?? '';
    if (/filter=lfs/.test(attributes))
      notes.push('Git LFS files are their pointer files in the worktree: Deft runs no filters (run git lfs checkout there yourself if needed).');
    return notes;
  }

  private async removeQuietly(record: WorktreeRecord, deleteBranch: boolean): Promise<void> {
    await git(this.m, this.repoRoot, ['worktree', 'remove', '--force', '--force', record.path]).catch(() => null);
    if (await this.m.exists(record.path)) await this.m.rm(record.path, { recursive: true }).catch(() => {});
    await git(this.m, this.repoRoot, ['worktree', 'prune']).catch(() => null);
    if (deleteBranch && (await branchExists(this.m, this.repoRoot, record.branch).catch(() => false)))
      // --no-deref: a branch made a symbolic ref (a command in its sandbox may write refs/heads/deft/) goes, not what it names.
      await git(this.m, this.repoRoot, ['update-ref', '-d', '--no-deref', `refs/heads/${record.branch}`]).catch(() => null);
    await this.records.remove(record.name);
  }
}
