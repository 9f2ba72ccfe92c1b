import { localEnvironment } from '#infra/environment/local/local-environment';
import { type Stats, lstatSync } from 'node:fs';
import { lstat, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { access, constants, readlink } from 'node:fs/promises';
import { readLarge, readSmall } from './workspace-file';
import { dirname, join, relative, sep } from 'node:path';
import { writeFileAtomic } from '#infra/platform/files';
import { isWithin } from '#infra/policies/path-guard';
import { SECRET_BY_CONTENT, isSensitiveFile, isSensitivePath } from '#infra/policies/sensitive';
import { GitError, type GitPlaces, runGit, splitZ } from './git';
import {
  RefExistsError,
  TREE_MODE,
  type TreeEntry,
  commitBody,
  objectId,
  parseTree,
  readLooseObject,
  readLooseObjectIn,
  writeObject,
  writeRef,
} from './objects';
import { type PathChange, patchTree } from './tree-patch';
import { withLock } from './lock';
import { BlobReader } from './blob-reader';
import { PackReader } from './pack-reader';
import { writePack } from './pack-writer';
import { diffTreesHere } from './tree-diff';
import { type StorePlaces, inheritedIgnoreRules, resolvePlaces } from './places';
import { type RestoreEntry, type RestoreProblem, applyEntries } from './restore';
import { type TreeChange, indexDiffersFromHead, parseDiffTree, statusPaths } from './status';
import { ALTERNATES, SEED_PENDING, seedFromRepository, unseed } from './seed';
import { REWIND_JOURNAL, type RecoveredRewind, RewindJournal } from './journal';
import { type Mark, lstatOrNull, markOf, readLooked, unchanged, writeLooked } from './looked';

/**
 * Why a checkpoint was taken: before a turn ('turn'), just before a step's approved calls run ('tools'), after
 * a step or a background task that may have changed files ('step', 'task'), at a turn's end ('turn-end'), just
 * before and just after a rewind or a revert. What changed up to one taken just before Deft acts ('turn',
 * 'tools', 'rewind', 'revert'), or at a turn's end (after the model's last words: nothing of the turn's ran
 * since its last step), was changed outside the turn.
 */
export type CheckpointKind = 'turn' | 'tools' | 'step' | 'turn-end' | 'task' | 'rewind' | 'rewound' | 'revert' | 'reverted';

/** What is recorded with a checkpoint beside the files (in its commit message). */
export interface CheckpointMeta {
  session: string;
  kind: CheckpointKind;
  turnId?: string;
  /** How the turn started (turn checkpoints): 'user', 'skill', 'task', … */
  origin?: string;
  /** The prompt's first characters (turn checkpoints). */
  prompt?: string;
  step?: number;
  /** What the checkpoint is for, in words (rewinds and reverts). */
  note?: string;
}

/** A file left out of a checkpoint, and why: it holds secrets, is over the size limit, unreadable, a nested repository or not a file. */
export interface SkippedFile {
  path: string;
  reason: 'secret' | 'too_large' | 'unreadable' | 'nested_repository' | 'special';
  size?: number;
}

export interface Checkpoint extends CheckpointMeta {
  /** `<session>/<seq>`: unique in the store. */
  id: string;
  seq: number;
  commit: string;
  tree: string;
  at: number;
  skipped: SkippedFile[];
}

/** What the workspace holds now, as a tree in the store (not yet a checkpoint). */
export interface Capture {
  tree: string;
  skipped: SkippedFile[];
}

/** A file that differs between two trees, in workspace terms. */
export interface FileChange {
  path: string;
  status: 'added' | 'deleted' | 'modified';
  oldMode: string;
  newMode: string;
  oldBlob: string;
  newBlob: string;
  added: number | null;
  removed: number | null;
}

export interface StoreOptions {
  /** Files larger than this are left out of checkpoints (default 10 MiB). */
  maxFileBytes?: number;
  now?: () => number;
}

export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
export const REF_ROOT = 'refs/deft/';
/** Skipped files recorded per checkpoint (the count beyond is kept). */
export const MAX_SKIPPED_RECORDED = 200;
/** Attributes that would make git change bytes on the way in or out; the store's info/attributes unsets them for every path. */
export const NEUTRAL_ATTRIBUTES = '* -text -eol -crlf -filter -ident -working-tree-encoding\n';
export const PERSONAL_SETTINGS = '.deft/settings.local.json';
/**
 * A capture hashes the files that differ from the store's index itself and leaves the index behind for
 * them, until more than this many files (or bytes) differ: then git updates the index (git hashes every
 * such file again on each `status` until it does).
 */
const LAG_LIMIT = 200;
const LAG_BYTES = 8 * 1024 * 1024;
const TREES_REMEMBERED = 4_096;
const SYNC_READ_BYTES = 256 * 1024;
/** A capture that hashes this many files or more writes their blobs (each up to PACK_BLOB_BYTES) as one pack. */
const PACK_FROM = 32;
const PACK_BLOB_BYTES = 1024 * 1024;
const PACK_TOTAL_BYTES = 64 * 1024 * 1024;

interface Looked {
  files: { path: string; size: number; executable: boolean }[];
  links: string[];
  missing: string[];
  /** Folders status reported as paths (nested repositories): left out, and never removed as folders. */
  folders: string[];
  skipped: SkippedFile[];
}

/**
 * The checkpoints of one workspace: a git object store of its own under Deft's home (`--git-dir`), with
 * its own index, and the workspace as the work tree. Unchanged files cost a stat (git's index), identical
 * contents are stored once, and nothing is ever written to the workspace's own `.git`. Every operation
 * holds the store's lock (across processes); a rewind interrupted by a crash is finished when the store
 * is next opened (its journal lists every path to restore).
 */
export class CheckpointStore {
  private readonly git: GitPlaces;
  private maxFileBytes: number;
  private readonly now: () => number;
  /** The store's HEAD commit and its tree as last seen: when nothing changed, the capture is that tree. */
  private head: { commit: string; tree: string } | null = null;
  /** The next checkpoint number of each session, as last seen (another process may have taken it: then it is read again). */
  private readonly nextSeq = new Map<string, number>();
  private readonly blobs: BlobReader;
  /** Trees and commits in packs (a seeded store's are the repository's), read here rather than through `blobs`' git. */
  private readonly packs: PackReader;
  /** Trees read or written lately, by id (an id names the same bytes for ever). */
  private readonly trees = new Map<string, Buffer>();
  /** A new store (no HEAD, no index): its first capture may start from the repository's index (seed.ts). */
  private seedable = false;
  /**
   * HEAD is the seeded tree (the repository index's, less what the store leaves out), not yet a checkpoint: the first
   * captures compare the workspace with it. It stands for no look at the workspace, so nothing is narrowed on top of it.
   */
  provisionalHead = false;
  /** Workspace files this store object read and hashed itself (a count for tests and benches). */
  filesRead = 0;
  private home = '';
  private readonly journal: RewindJournal;
  /** The rewind a crash interrupted, finished when this store opened (null when there was none). */
  recovered: RecoveredRewind | null = null;

  private constructor(
    readonly places: StorePlaces,
    options: StoreOptions,
  ) {
    this.git = { gitDir: places.gitDir, workTree: places.workspace, indexFile: join(places.gitDir, 'index') };
    this.blobs = new BlobReader(this.git);
    this.packs = new PackReader(places.gitDir);
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.now = options.now ?? Date.now;
    const files = { readText: (path: string) => readFile(path, 'utf8'), replaceFile: (path: string, data: string) => writeFileAtomic(path, data, 0o600), rm };
    this.journal = new RewindJournal(files, join(places.gitDir, REWIND_JOURNAL));
  }

  /** Open (creating it if needed) the store of `workspace`, finishing a rewind a crash interrupted. */
  static async open(home: string, workspace: string, options: StoreOptions = {}): Promise<CheckpointStore> {
    const places = await resolvePlaces(home, workspace);
    const store = new CheckpointStore(places, options);
    await mkdir(dirname(places.gitDir), { recursive: true, mode: 0o700 });
    store.home = home;
    await store.locked(async () => {
      await store.initialise(home);
      await store.recover();
    });
    return store;
  }

  /** Files larger than this are left out of the checkpoints taken from now on. */
  setMaxFileBytes(bytes: number): void {
    this.maxFileBytes = bytes;
  }

  get lockFile(): string {
    return `${this.places.gitDir}.lock`;
  }

  /** Hold the store's lock for a sequence of operations (the `tx` methods assume it is held). */
  locked<T>(work: () => Promise<T>): Promise<T> {
    return withLock(this.lockFile, async () => {
      // A rewind of this process that failed midway (its journal left) is finished before anything else.
      this.recovered = (await this.journal.finishInterrupted((entries) => applyEntries(this.git, entries))) ?? this.recovered;
      return work();
    });
  }

  // ---- under the lock ----

  /**
   * The workspace as it is now, as a tree in the store. `git status` finds what differs from the store's
   * index or HEAD (the stat pass); those files are hashed and the trees along their paths written here, in
   * this process, on top of HEAD's tree. The index is left behind for them (status reports them again and
   * they are hashed again) until more than LAG_LIMIT files or LAG_BYTES differ: then git's own
   * `update-index` and `write-tree` bring the index up to date. With `only` (workspace paths), just those
   * are looked at — a narrowed capture for changes whose files are known (Write, Edit): no walk of the
   * workspace; everything else stays as the last capture saw it.
   */
  async capture(only?: readonly string[]): Promise<Capture> {
    // (The system's clock, as the files' times are: not the clock the store dates its commits with.)
    const began = Date.now();
    // A seeded HEAD that no checkpoint has followed yet is no look at the workspace: nothing is narrowed on top of it.
    if (this.provisionalHead) only = undefined;
    if (only && !only.length) {
      const head = await this.headTree();
      if (head) return { tree: head, skipped: [] };
    }
    // Files HEAD's tree holds already (a Write over a file of the workspace): looked at and hashed here, no git. A path
    // neither HEAD nor the workspace holds (a temporary file written and renamed away) changes nothing: left out.
    if (only?.length) {
      const head = await this.headTree();
      if (head?.length === 40) {
        const { here, git, stats } = await this.sortPaths(head, only);
        if (!git.length) {
          if (!here.length) return { tree: head, skipped: [] };
          // The lstat sortPaths took serves again, and whether a file can be read is found by reading it (patchHead).
          const looked = await this.look(here, stats);
          const tree = await this.patchHead(head, looked);
          this.rememberLooked(head, tree, began, looked, stats, readLooked(this.places.gitDir, head) ?? new Map());
          return { tree, skipped: looked.skipped };
        }
        only = [...here, ...git];
      }
    }
    const seeded = !only && this.seedable ? await this.seed() : null;
    const pathspec = only?.length ? ['--', ...only.map(literal)] : [];
    const args = ['status', '--porcelain=v2', '-z', '--no-renames', '--untracked-files=all', '--ignore-submodules=all', ...pathspec];
    const status = await runGit(this.git, args, { writeIndex: true }).catch(async (error: unknown) => {
      // A path git refuses to look at (outside the work tree, say): look at the whole workspace instead.
      if (only) return null;
      // The seeded HEAD's trees could not be read (the repository's objects gone meanwhile): the same status without it.
      if (seeded === 'head') {
        await this.dropProvisionalHead();
        return runGit(this.git, args, { writeIndex: true });
      }
      throw error;
    });
    if (!status) return this.capture();
    // The index differs from the seeded HEAD (a cache-tree git left wrong): the index's own tree is written instead.
    if (seeded === 'head' && indexDiffersFromHead(status.stdout)) await this.dropProvisionalHead();
    // Just seeded: the index holds the repository's files already; only files that differ from it need a look.
    const candidates = statusPaths(status.stdout, { filesOnly: seeded !== null });
    // An untracked .gitattributes may have changed how the repository's blobs were made from the files: hash them all.
    if (seeded && candidates.some((p) => p === '.gitattributes' || p.endsWith('/.gitattributes'))) {
      await this.dropProvisionalHead();
      await unseed(this.places, this.git);
      return this.capture();
    }
    // Nothing differs from HEAD (neither the index nor the files): the tree is HEAD's, without asking git.
    const head = await this.headTree();
    if (!candidates.length && head) return { tree: head, skipped: [] };
    // Files the index lags behind for, as the last capture left them (looked.ts): as HEAD holds them, not looked at again.
    const remembered = head?.length === 40 && !seeded && candidates.length <= LAG_LIMIT ? readLooked(this.places.gitDir, head) : null;
    const stats = new Map<string, Stats | null>();
    const kept = new Map<string, Mark>();
    let toLook = candidates;
    if (remembered?.size) {
      toLook = candidates.filter((path) => {
        const mark = remembered.get(path);
        if (mark === undefined) return true;
        const found = lstatOrNull(join(this.places.workspace, path));
        if (unchanged(mark, found)) {
          kept.set(path, mark);
          return false;
        }
        stats.set(path, found);
        return true;
      });
      if (!toLook.length) return { tree: head!, skipped: [] };
    }
    let looked = await this.look(toLook, remembered?.size ? stats : undefined, stats);
    let bytes = looked.files.reduce((sum, f) => sum + f.size, 0);
    for (const mark of kept.values()) bytes += mark === 0 ? 0 : mark[0];
    const inProcess = head !== null && head.length === 40 && (only !== undefined || (candidates.length <= LAG_LIMIT && bytes <= LAG_BYTES));
    if (inProcess) {
      const tree = await this.patchHead(head, looked);
      if (!seeded) this.rememberLooked(head, tree, began, looked, stats, kept);
      return { tree, skipped: looked.skipped };
    }
    // git brings the index up to date for every file it lags behind for: all of them are looked at.
    if (kept.size || remembered) looked = await this.look(candidates);
    // Only a full look may write the index: a narrowed one without a HEAD (a first capture) looks at everything.
    if (only) return this.capture();
    const skipped = [...looked.skipped];
    const forceRemove = [...looked.skipped.map((s) => s.path), ...looked.folders];
    if (forceRemove.length) await runGit(this.git, ['update-index', '-z', '--force-remove', '--stdin'], { input: forceRemove.join('\0') + '\0' });
    const update = [...looked.files.map((f) => f.path), ...looked.links, ...looked.missing];
    if (update.length) skipped.push(...(await this.updateIndex(update)));
    const tree = candidates.length || !head ? (await runGit(this.git, ['write-tree'])).stdout.toString('utf8').trim() : head;
    skipped.sort((a, b) => a.path.localeCompare(b.path));
    return { tree, skipped };
  }

  /**
   * Seed the index from the repository's, once, for a new store (seed.ts): 'index'. Where the repository's index
   * knows the tree of its entries (its cache-tree), that tree less the paths the store leaves out becomes the
   * store's HEAD until the first checkpoint (`provisionalHead`): 'head'. The status then compares the index with
   * it, and lists only what differs in the workspace rather than every tracked file as new, and the capture is
   * that tree patched here with what differs (no `write-tree`). Null when not seeded.
   */
  private async seed(): Promise<'head' | 'index' | null> {
    this.seedable = false;
    if (await lstat(this.git.indexFile).catch(() => null)) return null;
    const seeded = await seedFromRepository(this.places, this.git, {
      maxFileBytes: this.maxFileBytes,
      home: this.home,
      excluded: this.excludedPaths(this.home),
    });
    if (!seeded) return null;
    if (seeded.tree?.length !== 40) return 'index';
    const gitDir = this.places.gitDir;
    try {
      const tree = seeded.removed.length
        ? await patchTree(
            seeded.tree,
            seeded.removed.map((path) => ({ path, entry: null })),
            (id) => this.readTree(id),
            (body) => writeObject(gitDir, 'tree', body),
          )
        : seeded.tree;
      const commit = await writeObject(gitDir, 'commit', Buffer.from(commitBody(tree, 'seed\n\nThe repository index, not a checkpoint.\n', new Date())));
      // The mark first: a store found with it has its HEAD and index dropped as it opens, and is seeded again.
      await writeFile(join(gitDir, SEED_PENDING), '', { mode: 0o600 });
      this.provisionalHead = true;
      await writeRef(gitDir, 'HEAD', commit);
      return 'head';
    } catch {
      await this.dropProvisionalHead();
      return 'index';
    }
  }

  /** HEAD unborn again, where it was only the seeded tree (the index stays). */
  private async dropProvisionalHead(): Promise<void> {
    if (!this.provisionalHead) return;
    await writeFile(join(this.places.gitDir, 'HEAD'), 'ref: refs/heads/master\n', { mode: 0o600 });
    await rm(join(this.places.gitDir, SEED_PENDING), { force: true });
    this.head = null;
    this.provisionalHead = false;
  }

  /** Whether the store still reads objects of the workspace's repository (a seeded store, until `ownObjects`). */
  async borrows(): Promise<boolean> {
    return (await lstat(join(this.places.gitDir, ALTERNATES)).catch(() => null)) !== null;
  }

  /**
   * Copy every object the checkpoints need from the repository the store was seeded from into a pack of the
   * store's own (git repack -a without --local packs borrowed objects too), then stop borrowing. Under the lock.
   */
  async ownObjects(): Promise<void> {
    if (!(await this.borrows())) return;
    this.blobs.close();
    await runGit(this.git, ['-c', 'pack.compression=1', 'repack', '-a', '-d', '-q', '--window=0']);
    await rm(join(this.places.gitDir, ALTERNATES), { force: true });
    this.packs.close();
  }

  /**
   * What each path `git status` reported is now: a file (and its size), a link, gone, or left out (and why). With
   * `known`, the lstat of each path just taken (sortPaths), for a look whose files are then read here (patchHead: a file
   * that cannot be read is left out as unreadable there), so neither is asked of the system again.
   */
  private async look(candidates: readonly string[], known?: ReadonlyMap<string, Stats | null>, seen?: Map<string, Stats | null>): Promise<Looked> {
    const looked: Looked = { files: [], links: [], missing: [], folders: [], skipped: [] };
    await Promise.all(
      candidates.map(async (path) => {
        const clean = path.replace(/\/$/, '');
        const full = join(this.places.workspace, clean);
        const stats = known?.has(clean) ? known.get(clean)! : await lstat(full).catch(() => null);
        seen?.set(clean, stats);
        if (!stats) return void looked.missing.push(clean);
        if (stats.isSymbolicLink()) return void looked.links.push(clean);
        const skip = (reason: SkippedFile['reason'], size?: number) =>
          void looked.skipped.push({ path: clean, reason, ...(size !== undefined ? { size } : {}) });
        if (stats.isDirectory()) {
          looked.folders.push(clean);
          return skip(path.endsWith('/') ? 'nested_repository' : 'special');
        }
        if (!stats.isFile()) return skip('special');
        // Never stored, ignored or not (.env, keys, tokens): the one list of secrets, and for key files and hard links their content.
        if (
          isSensitivePath(clean) ||
          ((SECRET_BY_CONTENT.test(clean) || stats.nlink > 1) && (await isSensitiveFile(localEnvironment(), full, { workspace: this.places.workspace })))
        )
          return skip('secret');
        if (stats.size > this.maxFileBytes) return skip('too_large', stats.size);
        if (
          !known &&
          !(await access(full, constants.R_OK).then(
            () => true,
            () => false,
          ))
        )
          return skip('unreadable');
        looked.files.push({ path: clean, size: stats.size, executable: (stats.mode & 0o100) !== 0 });
      }),
    );
    return looked;
  }

  /**
   * Remember, for `tree` (HEAD's patched with `looked`), the files looked at that it holds as they were (their lstat,
   * taken before they were read) and the paths found empty, beside `kept` (marks still true: of HEAD's paths not looked
   * at again): the next capture, while HEAD is `tree`, does not look at them again (looked.ts).
   */
  private rememberLooked(
    head: string,
    tree: string,
    began: number,
    looked: Looked,
    stats: ReadonlyMap<string, Stats | null>,
    kept: ReadonlyMap<string, Mark>,
  ): void {
    const marks = new Map(kept);
    const skipped = new Set(looked.skipped.map((s) => s.path));
    for (const path of [...looked.files.map((f) => f.path), ...looked.missing, ...looked.links, ...skipped]) marks.delete(path);
    for (const path of [...looked.files.map((f) => f.path), ...looked.missing]) {
      if (skipped.has(path) || !stats.has(path)) continue;
      const mark = markOf(stats.get(path)!, began);
      if (mark !== undefined) marks.set(path, mark);
    }
    if (marks.size || tree !== head) writeLooked(this.places.gitDir, tree, marks);
  }

  /** HEAD's tree with the looked-at paths as they are now: their blobs and the trees along them written here. */
  private async patchHead(head: string, looked: Looked): Promise<string> {
    const { gitDir, workspace } = this.places;
    const skipped = looked.skipped;
    const changes: PathChange[] = [
      ...looked.missing.map((path) => ({ path, entry: null })),
      ...skipped.map((s) => ({ path: s.path, entry: null, keepFolder: looked.folders.includes(s.path) })),
    ];
    // Many files: their blobs go into one pack (two files created rather than one per blob), written once all are read.
    const packed: { path: string; mode: string; body: Buffer }[] = [];
    const pack = looked.files.length >= PACK_FROM;
    let packedBytes = 0;
    await Promise.all([
      ...looked.files.map(async (file) => {
        const full = join(workspace, file.path);
        // A small file is read in one synchronous call: cheaper than four trips through the thread pool.
        const content = file.size <= SYNC_READ_BYTES ? readSmall(full) : await readLarge(full);
        this.filesRead++;
        if (!content || content.length > this.maxFileBytes) {
          skipped.push(content ? { path: file.path, reason: 'too_large', size: content.length } : { path: file.path, reason: 'unreadable' });
          return void changes.push({ path: file.path, entry: null });
        }
        const mode = file.executable ? '100755' : '100644';
        if (pack && content.length <= PACK_BLOB_BYTES && packedBytes + content.length <= PACK_TOTAL_BYTES) {
          packedBytes += content.length;
          return void packed.push({ path: file.path, mode, body: content });
        }
        changes.push({ path: file.path, entry: { mode, id: await writeObject(gitDir, 'blob', content) } });
      }),
      ...looked.links.map(async (path) => {
        const target = await readlink(join(workspace, path), { encoding: 'buffer' }).catch(() => null);
        if (!target) return void changes.push({ path, entry: null });
        changes.push({ path, entry: { mode: '120000', id: await writeObject(gitDir, 'blob', target) } });
      }),
    ]);
    // The trees along the changed paths: with the blobs' pack when there is one (a command that changed files in 400
    // folders writes 400 trees, each a loose file created, its folder made and renamed into place otherwise), else loose.
    const objects = packed.map((file) => ({ type: 'blob' as const, body: file.body, id: objectId('blob', file.body) }));
    objects.forEach((object, i) => changes.push({ path: packed[i]!.path, entry: { mode: packed[i]!.mode, id: object.id } }));
    const trees: { type: 'tree'; body: Buffer; id: string }[] = [];
    skipped.sort((a, b) => a.path.localeCompare(b.path));
    const tree = await patchTree(
      head,
      changes,
      (id) => this.readTree(id),
      async (body) => {
        if (!objects.length) {
          const id = await writeObject(gitDir, 'tree', body);
          this.remember(id, body);
          return id;
        }
        const id = objectId('tree', body);
        trees.push({ type: 'tree', body, id });
        return id;
      },
    );
    if (objects.length) {
      writePack(gitDir, [...objects, ...trees]);
      // Remembered once they are in the store: a failed pack leaves no tree known here that the store lacks.
      for (const t of trees) this.remember(t.id, t.body);
    }
    return tree;
  }

  /**
   * Sorts workspace paths for a narrowed capture on top of `tree`. `here`: a file or a link in `tree`, and not a folder
   * in the workspace now — captured whatever the ignore rules say (git's status reports a path HEAD holds whenever it
   * differs), so it is looked at without git. Left out: a path `tree` holds nothing at and the workspace holds nothing
   * at either (no change). `git`: the rest (a new file needs git's ignore rules, a folder a walk) — git's status then.
   */
  private async sortPaths(tree: string, paths: readonly string[]): Promise<{ here: string[]; git: string[]; stats: Map<string, Stats | null> }> {
    const here: string[] = [];
    const git: string[] = [];
    const stats = new Map<string, Stats | null>();
    // Each tree on the paths parsed once (500 paths share a few dozen folders).
    const parsed = new Map<string, Map<string, TreeEntry>>();
    const entries = async (id: string) => {
      let known = parsed.get(id);
      if (!known) parsed.set(id, (known = new Map(parseTree(await this.readTree(id)).map((e) => [e.name.toString('latin1'), e]))));
      return known;
    };
    for (const path of paths) {
      const parts = path.split('/');
      if (!parts.every((part) => part && part !== '.' && part !== '..')) {
        git.push(path);
        continue;
      }
      let id: string | null = tree;
      let mode = TREE_MODE;
      for (const part of parts) {
        if (mode !== TREE_MODE || !id) {
          id = null;
          break;
        }
        const entry: TreeEntry | undefined = (await entries(id)).get(Buffer.from(part, 'utf8').toString('latin1'));
        [id, mode] = entry ? [entry.id, entry.mode] : [null, ''];
      }
      // Synchronously: one system call each, rather than a trip through the thread pool and a promise per path.
      let found: Stats | string;
      try {
        found = lstatSync(join(this.places.workspace, path));
      } catch (error) {
        found = (error as NodeJS.ErrnoException).code ?? 'error';
      }
      const absent = found === 'ENOENT' || found === 'ENOTDIR';
      if (id === null && absent) continue;
      const inTree = id !== null && mode !== TREE_MODE && mode !== '160000';
      const isFolder = typeof found !== 'string' && found.isDirectory();
      (inTree && !isFolder ? here : git).push(path);
      if (inTree && !isFolder) stats.set(path, typeof found === 'string' ? null : found);
    }
    return { here, git, stats };
  }

  /**
   * Whether the store's HEAD holds anything at `path` (a workspace path: a file, a link or a folder with entries),
   * read in-process. True when there is no HEAD yet (or a sha-256 store's), as what it will hold is not known.
   */
  async holds(path: string): Promise<boolean> {
    const head = await this.headTree();
    if (!head || head.length !== 40) return true;
    let id: string = head;
    for (const part of path.split('/')) {
      const name = Buffer.from(part, 'utf8');
      const entry: TreeEntry | undefined = parseTree(await this.readTree(id)).find((e) => e.name.equals(name));
      if (!entry) return false;
      if (entry.mode !== TREE_MODE) return true;
      id = entry.id;
    }
    return true;
  }

  /** A tree's body: from this process's memory of recent trees, or from the store (a loose one read here, without git). */
  private async readTree(id: string): Promise<Buffer> {
    const known = this.trees.get(id);
    if (known) return known;
    const body =
      (await readLooseObject(this.places.gitDir, id, 'tree')) ?? this.packs.read(id, 'tree') ?? (await this.borrowedLoose(id)) ?? (await this.blobs.read(id));
    this.remember(id, body);
    return body;
  }

  /** A tree loose in the folder the store borrows from (a repository not packed since its last commits), read here. */
  private async borrowedLoose(id: string): Promise<Buffer | null> {
    const objects = this.packs.alternate();
    return objects ? readLooseObjectIn(objects, id, 'tree').catch(() => null) : null;
  }

  private remember(id: string, body: Buffer): void {
    if (this.trees.size >= TREES_REMEMBERED) this.trees.clear();
    this.trees.set(id, body);
  }

  /** Record a capture as a checkpoint of `meta.session` (and make it the store's HEAD, which keeps `status` fast). */
  async record(capture: Capture, meta: CheckpointMeta): Promise<Checkpoint> {
    const at = this.now();
    const body = { ...meta, at, skipped: capture.skipped.slice(0, MAX_SKIPPED_RECORDED), skippedTotal: capture.skipped.length };
    const message = `${meta.kind}${meta.turnId ? ` ${meta.turnId}` : ''}\n\n${JSON.stringify(body)}\n`;
    const commit = await this.commit(capture.tree, message);
    for (let attempt = 0; ; attempt++) {
      const seq = this.nextSeq.get(meta.session) ?? (await this.lastSeq(meta.session)) + 1;
      // A ref that exists already: another process took this number meanwhile, so read them again.
      const created = await this.point(sessionRef(meta.session, seq), commit).then(
        () => true,
        (error: unknown) => {
          if (attempt >= 2 || !(error instanceof RefExistsError || error instanceof GitError)) throw error;
          return false;
        },
      );
      if (!created) {
        this.nextSeq.set(meta.session, (await this.lastSeq(meta.session)) + 1);
        continue;
      }
      this.nextSeq.set(meta.session, seq + 1);
      this.head = { commit, tree: capture.tree };
      if (this.provisionalHead) {
        await rm(join(this.places.gitDir, SEED_PENDING), { force: true });
        this.provisionalHead = false;
      }
      return { ...meta, id: `${meta.session}/${seq}`, seq, commit, tree: capture.tree, at, skipped: body.skipped };
    }
  }

  /** A parentless commit of `tree`, written here for a sha-1 store (git's commit-tree otherwise). */
  private async commit(tree: string, message: string): Promise<string> {
    if (tree.length !== 40) return (await runGit(this.git, ['commit-tree', tree], { input: message })).stdout.toString('utf8').trim();
    return writeObject(this.places.gitDir, 'commit', Buffer.from(commitBody(tree, message, new Date())));
  }

  /** Create `ref` at `commit` (failing if it exists), then move HEAD there. */
  private async point(ref: string, commit: string): Promise<void> {
    if (commit.length !== 40) {
      await this.removeStaleRefLocks();
      await runGit(this.git, ['update-ref', '--stdin'], { input: `option no-deref\nupdate HEAD ${commit}\ncreate ${ref} ${commit}\n` });
      return;
    }
    // A `.lock` in the way was left by a process killed while it wrote (under the store's lock nothing else writes): removed, then once more.
    const write = (name: string, create: boolean) =>
      writeRef(this.places.gitDir, name, commit, { create }).catch(async (error: unknown) => {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        await this.removeStaleRefLocks();
        await writeRef(this.places.gitDir, name, commit, { create });
      });
    await write(ref, true);
    await write('HEAD', false);
  }

  /** The session's checkpoints, oldest first. */
  async list(session: string): Promise<Checkpoint[]> {
    if (!(await this.hasRefs(session))) return [];
    return this.listRefs(`${REF_ROOT}${session}/`);
  }

  /** Whether the session has checkpoints, looked up here (a new session's first checkpoint starts no git to learn it has none). */
  private async hasRefs(session: string): Promise<boolean> {
    if (await lstat(join(this.places.gitDir, REF_ROOT, session)).catch(() => null)) return true;
    const packed = await readFile(join(this.places.gitDir, 'packed-refs'), 'utf8').catch(() => '');
    return packed.includes(` ${REF_ROOT}${session}/`);
  }

  /** Every checkpoint in the store, oldest first within each session. */
  async listAll(): Promise<Checkpoint[]> {
    return this.listRefs(REF_ROOT);
  }

  /**
   * Each session's latest checkpoint time (its highest number's commit), read here: the loose refs' folders, the
   * packed refs, and one commit each (a loose one in-process, a packed one through the object reader). No git
   * process where the commits are loose, and one commit read per session rather than every checkpoint's.
   */
  async latestTimes(): Promise<Map<string, number> | undefined> {
    const latest = new Map<string, string>();
    const packed = await readFile(join(this.places.gitDir, 'packed-refs'), 'utf8').catch(() => '');
    for (const match of packed.matchAll(/^([0-9a-f]{40,64}) refs\/deft\/([A-Za-z0-9_-]+)\/(\d+)$/gm)) {
      const [, id = '', session = '', seq = ''] = match;
      if (seq > (latest.get(session)?.split(' ')[0] ?? '')) latest.set(session, `${seq} ${id}`);
    }
    const root = join(this.places.gitDir, REF_ROOT);
    const sessions = await readdir(root).catch(() => [] as string[]);
    await Promise.all(
      sessions.map(async (session) => {
        const top = (await readdir(join(root, session)).catch(() => [] as string[]))
          .filter((name) => /^\d+$/.test(name))
          .sort()
          .at(-1);
        if (!top || top <= (latest.get(session)?.split(' ')[0] ?? '')) return;
        const id = (await readFile(join(root, session, top), 'utf8').catch(() => '')).trim();
        if (!/^[0-9a-f]{40,64}$/.test(id)) return void latest.set(session, `${top} ?`);
        latest.set(session, `${top} ${id}`);
      }),
    );
    const times = new Map<string, number>();
    for (const [session, value] of latest) {
      const id = value.split(' ')[1] ?? '';
      if (!/^[0-9a-f]{40,64}$/.test(id)) return undefined;
      const body = await readLooseObject(this.places.gitDir, id, 'commit')
        .then((loose) => loose ?? this.blobs.read(id))
        .catch(() => null);
      // The commit's headers, a blank line, the message's subject, a blank line, then its body (commitMessage).
      const message = body?.toString('utf8') ?? '';
      const subject = message.indexOf('\n\n');
      const at = subject < 0 ? undefined : parseBody(message.slice(message.indexOf('\n\n', subject + 2) + 2))?.at;
      if (at === undefined) return undefined;
      times.set(session, at);
    }
    return times;
  }

  /**
   * What differs between two trees, within the workspace; `counts` adds line counts (reads the blobs): of every file, or,
   * a number N, of the first N only (the others' stay null).
   */
  async changes(from: string, to: string, counts: boolean | number = false): Promise<FileChange[]> {
    if (from === to) return [];
    // A few small files (a turn's): worked out here, with the trees and blobs read in-process (no git process).
    if (from.length === 40 && to.length === 40) {
      const here = await diffTreesHere(
        from,
        to,
        (id) => this.readTree(id).catch(() => null),
        async (id) => (await readLooseObject(this.places.gitDir, id, 'blob').catch(() => null)) ?? this.packs.read(id, 'blob'),
        counts,
      );
      if (here) return here.map(toFileChange);
    }
    const args = ['diff-tree', '-r', '-z', '--no-renames', '--raw', ...(counts !== false && counts !== 0 ? ['--numstat'] : []), from, to];
    return parseDiffTree((await runGit(this.git, args)).stdout).map(toFileChange);
  }

  /** The blob and mode of a workspace path in a tree, or null when the tree does not hold it. */
  async entry(tree: string, path: string): Promise<{ mode: string; blob: string } | null> {
    return parseEntry((await runGit(this.git, ['ls-tree', '-z', tree, '--', literal(path)])).stdout, path);
  }

  /** A blob's content, through one long-running git (BlobReader). */
  blob(id: string): Promise<Buffer> {
    return this.blobs.read(id);
  }

  /** End the processes the store keeps running (its object reader). */
  close(): void {
    this.blobs.close();
    this.packs.close();
  }

  /**
   * Put these workspace paths back to what `tree` holds (a path the tree does not hold is deleted). A
   * journal lists them first, so a crash midway is finished at the next open.
   */
  async restore(tree: string, paths: readonly string[]): Promise<RestoreProblem[]> {
    if (!paths.length) return [];
    const wanted = new Set(paths);
    const listed = await runGit(this.git, ['ls-tree', '-r', '-z', '--full-tree', tree, '--', ...[...wanted].map(literal)]);
    const entries: RestoreEntry[] = [];
    for (const record of splitZ(listed.stdout)) {
      const [meta = '', name = ''] = record.split('\t');
      const [mode = '', , blob = ''] = meta.split(' ');
      if (wanted.delete(name)) entries.push({ path: name, mode, blob });
    }
    for (const path of wanted) entries.push({ path, mode: null, blob: '' });
    return this.journal.around(entries, (listed) => applyEntries(this.git, listed));
  }

  /** Drop checkpoints (their refs); their objects go at the next `compact`. */
  async drop(checkpoints: readonly Pick<Checkpoint, 'session' | 'seq'>[]): Promise<void> {
    if (!checkpoints.length) return;
    const lines = checkpoints.map((c) => `delete ${sessionRef(c.session, c.seq)}\n`).join('');
    await this.removeStaleRefLocks();
    await runGit(this.git, ['update-ref', '--stdin'], { input: lines });
    this.nextSeq.clear();
  }

  /** Pack loose objects and remove those no checkpoint needs any more. */
  async compact(full: boolean): Promise<void> {
    // The reader may hold packs a repack removes: it starts again on the next read.
    this.blobs.close();
    this.packs.close();
    await runGit(this.git, ['repack', '-d', '-q', ...(full ? ['-a'] : ['--geometric=2'])]);
    await runGit(this.git, ['prune-packed', '-q']);
    if (full) {
      // A full repack packed the borrowed objects too (no --local): the store no longer needs the repository's.
      await rm(join(this.places.gitDir, ALTERNATES), { force: true });
      await this.removeStaleRefLocks();
      await runGit(this.git, ['pack-refs', '--all', '--prune']);
      await runGit(this.git, ['prune', '--expire=now']);
    }
  }

  /** Loose objects waiting to be packed, counted here (as git's count-objects counts them, without a git process). */
  async looseObjects(): Promise<number> {
    const objects = join(this.places.gitDir, 'objects');
    const folders = (await readdir(objects).catch(() => [] as string[])).filter((name) => /^[0-9a-f]{2}$/.test(name));
    const counts = await Promise.all(
      folders.map(
        async (name) => (await readdir(join(objects, name)).catch(() => [] as string[])).filter((f) => /^[0-9a-f]{38}([0-9a-f]{24})?$/.test(f)).length,
      ),
    );
    return counts.reduce((sum, n) => sum + n, 0);
  }

  /** Bytes the store takes on disk (the sum of its files' sizes). */
  async sizeBytes(): Promise<number> {
    return folderSize(this.places.gitDir);
  }

  // ---- internals ----

  /** `git update-index --add --remove` for these paths; a path git refuses (a race, a permission) is skipped, not fatal. */
  private async updateIndex(paths: string[]): Promise<SkippedFile[]> {
    try {
      await runGit(this.git, ['update-index', '-z', '--add', '--remove', '--stdin'], { input: paths.join('\0') + '\0' });
      return [];
    } catch {
      const skipped: SkippedFile[] = [];
      for (const path of paths) {
        try {
          await runGit(this.git, ['update-index', '-z', '--add', '--remove', '--stdin'], { input: path + '\0' });
        } catch {
          await runGit(this.git, ['update-index', '-z', '--force-remove', '--stdin'], { input: path + '\0' }).catch(() => {});
          skipped.push({ path, reason: 'unreadable' });
        }
      }
      return skipped;
    }
  }

  /** HEAD's tree, from memory when HEAD has not moved since this process last saw it; null without a HEAD. */
  async headTree(): Promise<string | null> {
    const commit = (await readFile(join(this.places.gitDir, 'HEAD'), 'utf8').catch(() => '')).trim();
    if (!/^[0-9a-f]{40,64}$/.test(commit)) return null;
    if (this.head?.commit !== commit) {
      const body = (await readLooseObject(this.places.gitDir, commit, 'commit')) ?? this.packs.read(commit, 'commit') ?? (await this.blobs.read(commit));
      const tree = /^tree ([0-9a-f]{40,64})\n/.exec(body.toString('latin1'))?.[1];
      if (!tree) throw new Error(`The checkpoint store's HEAD (${commit}) is not a commit.`);
      this.head = { commit, tree };
    }
    return this.head.tree;
  }

  private async lastSeq(session: string): Promise<number> {
    if (!(await this.hasRefs(session))) return 0;
    const out = await runGit(this.git, ['for-each-ref', '--count=1', '--sort=-refname', '--format=%(refname)', `${REF_ROOT}${session}/`]);
    const ref = out.stdout.toString('utf8').trim();
    return ref ? Number(ref.slice(ref.lastIndexOf('/') + 1)) || 0 : 0;
  }

  private async listRefs(prefix: string): Promise<Checkpoint[]> {
    return parseRefList((await runGit(this.git, LIST_REFS_ARGS(prefix))).stdout);
  }

  private async initialise(home: string): Promise<void> {
    const gitDir = this.places.gitDir;
    if (!(await lstat(join(gitDir, 'HEAD')).catch(() => null))) {
      // What `git init --bare --template=` makes, made here (a first turn starts one git fewer): the folders, the
      // store's own config, then HEAD last — a store that has no HEAD yet (cut off midway) is made again.
      for (const dir of ['objects/info', 'objects/pack', 'refs/heads', 'refs/tags']) await mkdir(join(gitDir, dir), { recursive: true, mode: 0o700 });
      await writeFile(join(gitDir, 'config'), storeConfigText(), { mode: 0o600 });
      await writeFile(join(gitDir, 'HEAD'), 'ref: refs/heads/master\n', { mode: 0o600 });
    }
    this.seedable = !(await readFile(join(gitDir, 'HEAD'), 'utf8').catch(() => '')).trim().match(/^[0-9a-f]{40,64}$/);
    // Seeded, and cut off before its first checkpoint: its HEAD is no look at the workspace, so it starts again.
    if (!this.seedable && (await lstat(join(gitDir, SEED_PENDING)).catch(() => null))) {
      await writeFile(join(gitDir, 'HEAD'), 'ref: refs/heads/master\n', { mode: 0o600 });
      await rm(this.git.indexFile, { force: true });
      await rm(join(gitDir, SEED_PENDING), { force: true });
      this.seedable = true;
    }
    await mkdir(join(gitDir, 'info'), { recursive: true });
    await writeIfChanged(join(gitDir, 'info', 'attributes'), NEUTRAL_ATTRIBUTES);
    await writeIfChanged(join(gitDir, 'info', 'exclude'), await this.excludes(home));
    await writeIfChanged(join(gitDir, 'deft-workspace.json'), JSON.stringify({ workspace: this.places.workspace }) + '\n');
    await this.removeStaleGitLocks();
  }

  /**
   * What is never captured beyond the workspace's own ignore rules: Deft's home when it lies inside the
   * workspace, Deft's personal project settings, and the patterns of the repository's own info/exclude.
   */
  private async excludes(home: string): Promise<string> {
    const lines = ['# Written by Deft: paths checkpoints never capture.'];
    const inside = this.homeInside(home);
    if (inside) lines.push(`/${inside}/`);
    lines.push(`/${PERSONAL_SETTINGS}`);
    lines.push(...(await inheritedIgnoreRules(this.places)));
    return lines.join('\n') + '\n';
  }

  /** Workspace paths never captured: Deft's home when it lies inside the workspace, Deft's personal project settings. */
  private excludedPaths(home: string): string[] {
    const inside = this.homeInside(home);
    return inside ? [inside, PERSONAL_SETTINGS] : [PERSONAL_SETTINGS];
  }

  /** Deft's home as a workspace path, when it lies inside the workspace. */
  private homeInside(home: string): string | null {
    const { workspace } = this.places;
    return isWithin(home, workspace) && home !== workspace ? relative(workspace, home).split(sep).join('/') : null;
  }

  /**
   * A git process killed mid-write leaves `*.lock` files; under our lock no git of ours runs, so they are stale. Those
   * beside the store's files go as it opens; those under refs/ (a folder per session: a walk that grows with them)
   * only when one is in the way — before git writes refs (drop, compact), or when a ref this process writes finds one.
   */
  private async removeStaleGitLocks(): Promise<void> {
    const gitDir = this.places.gitDir;
    for (const name of ['index.lock', 'HEAD.lock', 'packed-refs.lock', 'config.lock', 'shallow.lock']) await rm(join(gitDir, name), { force: true });
  }

  private async removeStaleRefLocks(): Promise<void> {
    const gitDir = this.places.gitDir;
    await rm(join(gitDir, 'HEAD.lock'), { force: true });
    await rm(join(gitDir, 'packed-refs.lock'), { force: true });
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) await walk(path);
        else if (entry.name.endsWith('.lock')) await rm(path, { force: true });
      }
    };
    await walk(join(gitDir, 'refs'));
  }

  /** Finish a rewind that a crash interrupted: every path in its journal is put in its restored state (journal.ts). */
  private async recover(): Promise<void> {
    this.recovered = await this.journal.recover((entries) => applyEntries(this.git, entries));
  }
}

/** Settings kept in the store's own config (the only config its git reads). */
const STORE_CONFIG: Record<string, string> = {
  'core.bare': 'false',
  'core.logAllRefUpdates': 'false',
  'core.untrackedCache': 'true',
  'core.autocrlf': 'false',
  'status.showUntrackedFiles': 'all',
  'gc.auto': '0',
  'index.version': '4',
  'pack.writeBitmaps': 'false',
  'repack.writeBitmaps': 'false',
};

/** The store's config file: git's own defaults for a bare repository, then STORE_CONFIG. */
export function storeConfigText(): string {
  const sections = new Map<string, string[]>([['core', ['repositoryformatversion = 0', 'filemode = true']]]);
  for (const [key, value] of Object.entries(STORE_CONFIG)) {
    const dot = key.indexOf('.');
    const [section, name] = [key.slice(0, dot), key.slice(dot + 1)];
    sections.set(section, [...(sections.get(section) ?? []), `${name} = ${value}`]);
  }
  return [...sections].map(([section, lines]) => `[${section}]\n${lines.map((l) => `\t${l}\n`).join('')}`).join('');
}

export function sessionRef(session: string, seq: number): string {
  return `${REF_ROOT}${session}/${String(seq).padStart(8, '0')}`;
}

/** A pathspec that matches this path literally (no glob characters). */
export function literal(path: string): string {
  return `:(literal)${path}`;
}

export function toFileChange(change: TreeChange): FileChange {
  const { path } = change;
  const status = change.status === 'A' ? 'added' : change.status === 'D' ? 'deleted' : 'modified';
  return {
    path,
    status,
    oldMode: change.oldMode,
    newMode: change.newMode,
    oldBlob: change.oldBlob,
    newBlob: change.newBlob,
    added: change.added,
    removed: change.removed,
  };
}

/** `git for-each-ref` arguments that list the checkpoints under `prefix` (read by parseRefList). */
export const LIST_REFS_ARGS = (prefix: string): string[] => [
  'for-each-ref',
  '--sort=refname',
  '--format=%(refname)%00%(objectname)%00%(tree)%00%(contents:body)%1e',
  prefix,
];

/** The checkpoints `git for-each-ref` listed (LIST_REFS_ARGS). */
export function parseRefList(stdout: Buffer): Checkpoint[] {
  const list: Checkpoint[] = [];
  for (const record of stdout.toString('utf8').split('\x1e')) {
    const [ref = '', commit = '', tree = '', body = ''] = record.replace(/^\n/, '').split('\0');
    const match = /^refs\/deft\/([A-Za-z0-9_-]+)\/(\d+)$/.exec(ref);
    if (!match) continue;
    const meta = parseBody(body);
    if (!meta) continue;
    const seq = Number(match[2]);
    list.push({ ...meta, session: match[1]!, id: `${match[1]}/${seq}`, seq, commit, tree });
  }
  return list;
}

/** A workspace path's blob and mode from `git ls-tree -z <tree> -- <path>`, or null when the tree does not hold it. */
export function parseEntry(stdout: Buffer, path: string): { mode: string; blob: string } | null {
  const record = splitZ(stdout)[0];
  if (!record) return null;
  const [meta = '', name] = record.split('\t');
  const [mode = '', type, blob = ''] = meta.split(' ');
  return type === 'blob' && name === path ? { mode, blob } : null;
}

/** The commit message of a checkpoint: its kind and turn, then its meta as JSON (read back by parseRefList). */
export function commitMessage(meta: CheckpointMeta, at: number, skipped: readonly SkippedFile[]): { message: string; recorded: SkippedFile[] } {
  const body = { ...meta, at, skipped: skipped.slice(0, MAX_SKIPPED_RECORDED), skippedTotal: skipped.length };
  return { message: `${meta.kind}${meta.turnId ? ` ${meta.turnId}` : ''}\n\n${JSON.stringify(body)}\n`, recorded: body.skipped };
}

function parseBody(body: string): (CheckpointMeta & { at: number; skipped: SkippedFile[] }) | null {
  try {
    const parsed = JSON.parse(body.trim()) as Partial<CheckpointMeta & { at: number; skipped: SkippedFile[] }>;
    if (typeof parsed.kind !== 'string' || typeof parsed.at !== 'number') return null;
    return { ...(parsed as CheckpointMeta), at: parsed.at, skipped: Array.isArray(parsed.skipped) ? parsed.skipped : [] };
  } catch {
    return null;
  }
}

async function writeIfChanged(path: string, content: string): Promise<void> {
  if ((await readFile(path, 'utf8').catch(() => null)) === content) return;
  await writeFile(path, content, { mode: 0o600 });
}

async function folderSize(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await folderSize(path);
    else total += (await lstat(path).catch(() => null))?.size ?? 0;
  }
  return total;
}
