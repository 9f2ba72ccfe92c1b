import { createHash, randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Environment } from '#contract/environment';
import { SECRET_BY_CONTENT, isSensitiveFile, isSensitivePath } from '#infra/policies/sensitive';
import { type GitPlaces, splitZ } from './git';
import { withLock } from './lock';
import { type StorePlaces, environmentIo, inheritedIgnoreRules, resolvePlaces } from './places';
import { type ScriptOptions, runScript } from './remote-git';
import { commitTree, hasRefsUnder, readHead, replaceStoreFile, writeCheckpoint, writeIfChanged } from './remote-objects';
import { type RestoreEntry, type RestoreProblem, unsafePath } from './restore';
import { type RecoveredRewind, REWIND_JOURNAL, RewindJournal } from './journal';
import { applyRemoteEntries, chunks } from './remote-restore';
import { parseDiffTree, statusPaths } from './status';
import type { CheckpointStoreApi } from './store-api';
import {
  type Capture,
  type Checkpoint,
  type CheckpointMeta,
  DEFAULT_MAX_FILE_BYTES,
  type FileChange,
  LIST_REFS_ARGS,
  NEUTRAL_ATTRIBUTES,
  PERSONAL_SETTINGS,
  REF_ROOT,
  type SkippedFile,
  commitMessage,
  literal,
  parseEntry,
  parseRefList,
  sessionRef,
  storeConfigText,
  toFileChange,
} from './store';

/** Deft's folder on another machine (`~/.deft` there): what Deft keeps on that machine (checkpoint stores) lives under it. */
export function remoteDeftFolder(environment: Environment): string {
  return environment.path.join(environment.home, '.deft');
}

/** Paths looked at (lstat over the environment) at once. */
const LOOK_CONCURRENCY = 64;

export interface RemoteStoreOptions {
  maxFileBytes?: number;
  now?: () => number;
  /** Where this machine keeps the lock that serialises the store's operations (under Deft's home here). */
  lockDir: string;
  /** The workspace's key (WorkspacePlace.id): names the lock. */
  key: string;
}

/** The script line that removes the ref locks a killed git left. */
const CLEAR_REF_LOCKS = '[ -d "$GIT_DIR/refs" ] && find "$GIT_DIR/refs" -name "*.lock" -type f -exec rm -f {} + 2>/dev/null';

/** A time as git's GIT_*_DATE reads it (its internal format: seconds since the epoch, UTC). */
function gitDate(at: number): string {
  return `${Math.floor(at / 1000)} +0000`;
}

/** A tree id git printed, or null. */
function asTree(text: string): string | null {
  const tree = text.trim();
  return /^[0-9a-f]{40,64}$/.test(tree) ? tree : null;
}

/**
 * The checkpoints of a workspace on another machine: the same kind of store as `CheckpointStore` (a bare git
 * folder of its own as `--git-dir`, its own index, the workspace as the work tree, refs per session), kept on
 * that machine under Deft's folder there (`~/.deft/checkpoints/`), driven by that machine's git through the
 * Environment's exec — a few scripts per capture, never a process per file. The same rules: secrets (the one
 * list, `isSensitivePath`/`isSensitiveFile`) and files over the size cap are never stored, the workspace's own
 * `.git` is never touched, and nothing a repository's config names runs (remote-git.ts's prelude). Sessions stay
 * on this machine; the lock that serialises operations is here too (one Deft drives a remote workspace at once). A
 * rewind has the local store's crash journal (journal.ts), kept there beside the store.
 */
export class RemoteCheckpointStore implements CheckpointStoreApi {
  private readonly git: GitPlaces;
  private maxFileBytes: number;
  private readonly now: () => number;
  private readonly nextSeq = new Map<string, number>();
  /** HEAD's commit and tree as this process last saw them (HEAD's file is read again each time; the commit only when it moved). */
  private head: { commit: string; tree: string } | null = null;
  /** Set when the store was opened without a script: the first script clears the stale ref locks a killed git left. */
  private refLocksToClear = false;
  private readonly journal: RewindJournal;
  /** The rewind a killed Deft or a dropped connection interrupted, finished when this store opened (null when there was none). */
  recovered: RecoveredRewind | null = null;

  private constructor(
    private readonly environment: Environment,
    readonly places: StorePlaces,
    private readonly lockFile: string,
    options: RemoteStoreOptions,
  ) {
    this.git = { gitDir: places.gitDir, workTree: places.workspace, indexFile: places.gitDir + '/index' };
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    this.now = options.now ?? Date.now;
    const files = {
      readText: (path: string) => environment.readText(path),
      replaceFile: (path: string, data: string) => replaceStoreFile(environment, path, data),
      rm: (path: string, options: { force: true }) => environment.rm(path, options),
    };
    this.journal = new RewindJournal(files, environment.path.join(places.gitDir, REWIND_JOURNAL));
  }

  /** Open (creating it if needed) the store of `workspace` on the environment's machine, finishing a rewind that was interrupted. Throws a GitError when git is missing there. */
  static async open(environment: Environment, workspace: string, options: RemoteStoreOptions): Promise<RemoteCheckpointStore> {
    const io = environmentIo(environment);
    const deft = remoteDeftFolder(environment);
    const places = await resolvePlaces(deft, workspace, io);
    await mkdir(options.lockDir, { recursive: true, mode: 0o700 });
    const hash = createHash('sha256').update(options.key).digest('hex').slice(0, 16);
    const store = new RemoteCheckpointStore(environment, places, join(options.lockDir, `remote-${hash}.lock`), options);
    await store.locked(async () => {
      await store.initialise(deft, io);
      store.recovered = await store.journal.recover((entries) => store.apply(entries));
    });
    return store;
  }

  setMaxFileBytes(bytes: number): void {
    this.maxFileBytes = bytes;
  }

  locked<T>(work: () => Promise<T>): Promise<T> {
    return withLock(this.lockFile, async () => {
      // A rewind of this process that failed midway (its journal left) is finished before anything else.
      this.recovered = (await this.journal.finishInterrupted((entries) => this.apply(entries))) ?? this.recovered;
      return work();
    });
  }

  private run(args: readonly string[], options?: ScriptOptions) {
    return this.script('g "$@"', args, options);
  }

  private script(body: string, args: readonly string[] = [], options?: ScriptOptions) {
    const clear = this.refLocksToClear ? `${CLEAR_REF_LOCKS}\n` : '';
    this.refLocksToClear = false;
    return runScript(this.environment, this.git, this.places.workspace, clear + body, args, options);
  }

  /**
   * Make the store if there is none (one script); an existing one is brought up to date over file calls alone (its
   * own attributes, excludes and workspace note; stale git locks removed, those of refs by the first script), so
   * opening it starts no process there.
   */
  private async initialise(deft: string, io: ReturnType<typeof environmentIo>): Promise<void> {
    const { path } = this.environment;
    const { workspace, gitDir } = this.places;
    const excludes = ['# Written by Deft: paths checkpoints never capture.'];
    if (deft.startsWith(workspace + '/')) excludes.push(`/${path.relative(workspace, deft)}/`);
    excludes.push(`/${PERSONAL_SETTINGS}`, ...(await inheritedIgnoreRules(this.places, io)));
    const files = { attributes: NEUTRAL_ATTRIBUTES, exclude: excludes.join('\n') + '\n', note: JSON.stringify({ workspace }) + '\n' };
    if (await this.environment.lstat(path.join(gitDir, 'HEAD')).catch(() => null)) {
      const env = this.environment;
      await env.mkdir(path.join(gitDir, 'info'), { recursive: true });
      await Promise.all([
        writeIfChanged(env, path.join(gitDir, 'info', 'attributes'), files.attributes),
        writeIfChanged(env, path.join(gitDir, 'info', 'exclude'), files.exclude),
        writeIfChanged(env, path.join(gitDir, 'deft-workspace.json'), files.note),
        ...['index.lock', 'HEAD.lock', 'packed-refs.lock', 'config.lock', 'shallow.lock'].map((name) => env.rm(path.join(gitDir, name), { force: true })),
      ]);
      this.refLocksToClear = true;
      return;
    }
    const body = [
      'd=$GIT_DIR',
      // Private to the user: the store holds copies of the workspace's files.
      'mkdir -p "$(dirname "$d")" && chmod 700 "$(dirname "$d")" || exit 1',
      'if [ ! -f "$d/HEAD" ]; then',
      '  (unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE; g init --bare -q --template= "$d") || exit 1',
      '  printf %s "$1" > "$d/config" || exit 1',
      'fi',
      'mkdir -p "$d/info" && printf %s "$2" > "$d/info/attributes" && printf %s "$3" > "$d/info/exclude" || exit 1',
      'printf %s "$4" > "$d/deft-workspace.json"',
      'rm -f "$d/index.lock" "$d/HEAD.lock" "$d/packed-refs.lock" "$d/config.lock" "$d/shallow.lock"',
      CLEAR_REF_LOCKS,
      'exit 0',
    ].join('\n');
    await this.script(body, [storeConfigText(), files.attributes, files.exclude, files.note]);
  }

  /**
   * The workspace as it is now: `git status` there lists what differs from the store's index (the stat pass, on that
   * machine), those paths are looked at here through the Environment (what they are, secrets, the size cap), then one
   * script there updates the index (secrets and oversized files forced out of it) and writes the tree.
   */
  async capture(only?: readonly string[]): Promise<Capture> {
    const pathspec = only?.length ? ['--', ...only.map(literal)] : [];
    // HEAD's tree on the first line, then what status reports: one round trip.
    const status = await this.script('g rev-parse -q --verify "HEAD^{tree}" || echo; g "$@"', [
      'status',
      '--porcelain=v2',
      '-z',
      '--no-renames',
      '--untracked-files=all',
      '--ignore-submodules=all',
      ...pathspec,
    ]);
    const newline = status.stdout.indexOf(10);
    const head = asTree(status.stdout.subarray(0, newline).toString('utf8'));
    const candidates = [...new Set(statusPaths(status.stdout.subarray(newline + 1)))];
    if (!candidates.length && head) return { tree: head, skipped: [] };
    const { add, remove, skipped } = await this.look(candidates);
    let tree = '';
    const runs = chunks(remove);
    for (let i = 0; i < Math.max(1, runs.length); i++) {
      const last = i === Math.max(1, runs.length) - 1;
      const body = [
        'if [ $# -gt 0 ]; then printf "%s\\0" "$@" | g update-index -z --force-remove --stdin || exit 1; fi',
        last ? 'g update-index -z --add --remove --stdin || exit 1\ng write-tree' : 'exit 0',
      ].join('\n');
      const out = await this.script(body, runs[i] ?? [], last ? { input: add.length ? add.join('\0') + '\0' : '' } : {});
      if (last) tree = out.stdout.toString('utf8').trim();
    }
    skipped.sort((a, b) => a.path.localeCompare(b.path));
    return { tree, skipped };
  }

  /** What each candidate is now: added (a file, a link, or gone: update-index sees to it), or forced out and why. */
  private async look(candidates: readonly string[]): Promise<{ add: string[]; remove: string[]; skipped: SkippedFile[] }> {
    const add: string[] = [];
    const remove: string[] = [];
    const skipped: SkippedFile[] = [];
    const { workspace } = this.places;
    const lookAt = async (path: string) => {
      const clean = path.replace(/\/$/, '');
      const full = this.environment.path.join(workspace, clean);
      const skip = (reason: SkippedFile['reason'], size?: number) => {
        remove.push(clean);
        skipped.push({ path: clean, reason, ...(size !== undefined ? { size } : {}) });
      };
      const stats = await this.environment.lstat(full).catch(() => null);
      if (!stats || stats.isSymbolicLink()) return void add.push(clean);
      if (stats.isDirectory()) return skip(path.endsWith('/') ? 'nested_repository' : 'special');
      if (!stats.isFile()) return skip('special');
      if (isSensitivePath(clean) || (SECRET_BY_CONTENT.test(clean) && (await isSensitiveFile(this.environment, full, { workspace })))) return skip('secret');
      if (stats.size > this.maxFileBytes) return skip('too_large', stats.size);
      add.push(clean);
    };
    for (let i = 0; i < candidates.length; i += LOOK_CONCURRENCY) await Promise.all(candidates.slice(i, i + LOOK_CONCURRENCY).map(lookAt));
    return { add, remove, skipped };
  }

  async record(capture: Capture, meta: CheckpointMeta): Promise<Checkpoint> {
    const at = this.now();
    const { message, recorded } = commitMessage(meta, at, capture.skipped);
    // Commit, then create the session's ref and move HEAD there in one transaction; exit 3 when the ref exists. Without
    // a number ($2 empty), the next after the session's last ref is taken there (leading zeros off: not octal).
    // Idempotent: the commit is this request's own (its id in the subject, its dates `at`), so the same script run
    // again — a helper that died after the transaction took effect and before its answer came, run again as a process
    // (remote-git.ts) — makes the same commit, finds the session's ref already at it, and answers with that checkpoint.
    const request = `${message.slice(0, message.indexOf('\n'))} [request ${randomBytes(8).toString('hex')}]${message.slice(message.indexOf('\n'))}`;
    const body = [
      'export GIT_AUTHOR_DATE="$4" GIT_COMMITTER_DATE="$4"',
      'c=$(g commit-tree "$1") || exit 1',
      'done=$(g for-each-ref --count=1 --points-at "$c" --format="%(refname)" "$3") || exit 1',
      'if [ -n "$done" ]; then printf "%s\\n%s\\n" "$c" "$done"; exit 0; fi',
      'ref=$2',
      'if [ -z "$ref" ]; then',
      '  last=$(g for-each-ref --count=1 --sort=-refname --format="%(refname)" "$3")',
      '  n=$(printf "%s" "${last##*/}" | sed "s/^0*//")',
      '  ref=$(printf "%s%08d" "$3" $(( ${n:-0} + 1 )))',
      'fi',
      'printf "option no-deref\\nupdate HEAD %s\\ncreate %s %s\\n" "$c" "$ref" "$c" | g update-ref --stdin 2>/dev/null || exit 3',
      'printf "%s\\n%s\\n" "$c" "$ref"',
    ].join('\n');
    // A session whose next number is known, or that has no checkpoint yet: the commit and refs written over file
    // calls (no process there); otherwise, or when that cannot be done, by git there.
    const known = this.nextSeq.get(meta.session) ?? ((await hasRefsUnder(this.environment, this.places.gitDir, `${REF_ROOT}${meta.session}/`)) ? undefined : 1);
    if (known !== undefined) {
      const commit = await writeCheckpoint(this.environment, this.places.gitDir, capture.tree, message, at, sessionRef(meta.session, known));
      if (commit) {
        this.nextSeq.set(meta.session, known + 1);
        this.head = { commit, tree: capture.tree };
        return { ...meta, id: `${meta.session}/${known}`, seq: known, commit, tree: capture.tree, at, skipped: recorded };
      }
      this.nextSeq.delete(meta.session);
    }
    for (let attempt = 0; ; attempt++) {
      const known = this.nextSeq.get(meta.session);
      const ref = known === undefined ? '' : sessionRef(meta.session, known);
      const out = await this.script(body, [capture.tree, ref, `${REF_ROOT}${meta.session}/`, gitDate(at)], { input: request, okCodes: [0, 3] });
      if (out.exitCode === 3) {
        if (attempt >= 2) throw new Error(`A checkpoint of session ${meta.session} could not be created on ${this.environment.label}.`);
        // Another process took that number: the next is read there.
        this.nextSeq.delete(meta.session);
        continue;
      }
      const [commit = '', made = ''] = out.stdout.toString('utf8').trim().split('\n');
      const seq = Number(made.slice(made.lastIndexOf('/') + 1));
      this.nextSeq.set(meta.session, seq + 1);
      return { ...meta, id: `${meta.session}/${seq}`, seq, commit, tree: capture.tree, at, skipped: recorded };
    }
  }

  /** HEAD's tree, read over file calls where it can be (a loose commit), else from git there; null without a HEAD. */
  async headTree(): Promise<string | null> {
    const head = await readHead(this.environment, this.places.gitDir);
    if (head === 'none') return null;
    if (head && this.head?.commit === head) return this.head.tree;
    const tree = head ? await commitTree(this.environment, this.places.gitDir, head) : null;
    if (head && tree) {
      this.head = { commit: head, tree };
      return tree;
    }
    const out = await this.run(['rev-parse', '-q', '--verify', 'HEAD^{tree}'], { okCodes: [0, 1, 128] });
    return asTree(out.stdout.toString('utf8'));
  }

  async list(session: string): Promise<Checkpoint[]> {
    // A new session's first checkpoint starts no process there to learn it has none.
    if (!(await hasRefsUnder(this.environment, this.places.gitDir, `${REF_ROOT}${session}/`))) return [];
    const list = parseRefList((await this.run(LIST_REFS_ARGS(`${REF_ROOT}${session}/`))).stdout);
    // The next number is known from here on: the session's next checkpoint is written over file calls.
    const last = list.at(-1);
    if (last && !this.nextSeq.has(session)) this.nextSeq.set(session, last.seq + 1);
    return list;
  }

  async listAll(): Promise<Checkpoint[]> {
    return parseRefList((await this.run(LIST_REFS_ARGS(REF_ROOT))).stdout);
  }

  /** `counts` a number: every file is counted here all the same (one diff-tree either way). */
  async changes(from: string, to: string, counts: boolean | number = false): Promise<FileChange[]> {
    if (from === to) return [];
    const args = ['diff-tree', '-r', '-z', '--no-renames', '--raw', ...(counts !== false && counts !== 0 ? ['--numstat'] : []), from, to];
    return parseDiffTree((await this.run(args)).stdout).map(toFileChange);
  }

  async entry(tree: string, path: string): Promise<{ mode: string; blob: string } | null> {
    return parseEntry((await this.run(['ls-tree', '-z', tree, '--', literal(path)])).stdout, path);
  }

  async blob(id: string): Promise<Buffer> {
    return (await this.run(['cat-file', 'blob', id])).stdout;
  }

  /**
   * Put these paths back to what `tree` holds (remote-restore.ts), with the crash journal around it (journal.ts, the
   * local store's, written over SFTP beside the store there): a rewind a killed Deft or a dropped connection
   * interrupted is finished when the store next opens (`recovered` says so).
   */
  async restore(tree: string, paths: readonly string[]): Promise<RestoreProblem[]> {
    if (!paths.length) return [];
    const problems: RestoreProblem[] = [];
    for (const p of paths) if (unsafePath(p)) problems.push({ path: p, reason: 'the path is not a safe workspace path' });
    const wanted = new Set(paths.filter((p) => !unsafePath(p)));
    if (!wanted.size) return problems;
    const listed = await this.run(['ls-tree', '-r', '-z', '--full-tree', tree, '--', ...[...wanted].map(literal)]);
    const entries: RestoreEntry[] = [];
    for (const record of splitZ(listed.stdout)) {
      const [meta = '', name = ''] = record.split('\t');
      const [mode = '', , blob = ''] = meta.split(' ');
      if (wanted.delete(name)) entries.push({ path: name, mode, blob });
    }
    for (const path of wanted) entries.push({ path, mode: null, blob: '' });
    return [...problems, ...(await this.journal.around(entries, (listed) => this.apply(listed)))];
  }

  private apply(entries: readonly RestoreEntry[]): Promise<RestoreProblem[]> {
    return applyRemoteEntries(this.environment, this.places.workspace, (body, args, options) => this.script(body, args, options), entries);
  }

  async drop(checkpoints: readonly Pick<Checkpoint, 'session' | 'seq'>[]): Promise<void> {
    if (!checkpoints.length) return;
    await this.run(['update-ref', '--stdin'], { input: checkpoints.map((c) => `delete ${sessionRef(c.session, c.seq)}\n`).join('') });
    this.nextSeq.clear();
  }

  async compact(full: boolean): Promise<void> {
    const body = full ? 'g repack -a -d -q && g prune-packed -q && g pack-refs --all --prune && g prune --expire=now' : 'g repack -d -q && g prune-packed -q';
    await this.script(body);
  }

  async looseObjects(): Promise<number> {
    const out = await this.run(['count-objects']);
    return Number(/^(\d+) objects/.exec(out.stdout.toString('utf8'))?.[1] ?? 0);
  }

  async sizeBytes(): Promise<number> {
    const out = await this.script('du -sk -- "$GIT_DIR" 2>/dev/null || echo 0');
    return Number(/^(\d+)/.exec(out.stdout.toString('utf8'))?.[1] ?? 0) * 1024;
  }

  async borrows(): Promise<boolean> {
    return false;
  }

  async ownObjects(): Promise<void> {}

  close(): void {}
}
