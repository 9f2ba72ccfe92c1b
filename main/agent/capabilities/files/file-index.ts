import { setImmediate as yieldToEvents } from 'node:timers/promises';
import type { Prepared } from 'fuzzysort';
import { fuzzysortPackage } from '#infra/platform/on-demand';
import type { FileSearchResult } from '#protocol';
import { isSensitivePath } from '#infra/policies/sensitive';
import type { Environment } from '#contract/environment';
import { commonArgs, completeRecords, exclusionArgs, runRipgrep } from './ripgrep';

/** The most files the index keeps: a picker over more than this is a search, not a list. */
export const MAX_INDEXED = 200_000;
/** An index older than this is rebuilt in the background at the next query (answers come from the old one meanwhile); a slow build waits longer. */
const FRESH_MS = 5_000;
/** Paths handled between two turns of the event loop while building, so keystrokes are answered meanwhile. */
const BATCH = 2_000;
/** A query that finds nothing in an index older than this waits for a rebuild: the file may have just been created. */
const RECHECK_MS = 1_000;
const LIST_TIMEOUT_MS = 30_000;

interface Snapshot {
  /** Files, then the folders that hold them (with a trailing `/`), workspace-relative with `/` separators. */
  paths: string[];
  /** Shallow paths first, for the list shown before anything is typed. */
  shallow: string[];
  /** The paths prepared for matching (done while building, not at the first keystroke after it). */
  targets: Prepared[];
  capped: boolean;
}

function depth(path: string): number {
  let n = 0;
  for (let i = 0; i < path.length - 1; i++) if (path.charCodeAt(i) === 47) n++;
  return n;
}

/** Every folder above the files, each once, as `dir/`. */
function foldersOf(files: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const file of files) {
    for (let i = file.indexOf('/'); i > 0; i = file.indexOf('/', i + 1)) seen.add(file.slice(0, i + 1));
  }
  return [...seen];
}

/**
 * The workspace's files for the @-mention picker: listed by ripgrep (`rg --files`, so `.gitignore` and
 * the other ignore files are honoured, hidden files included, version-control folders out), secret
 * files dropped (the path policy's list), then matched fuzzily in memory. The list is built in the
 * background, in batches that let keystrokes be answered meanwhile, with every path prepared for
 * matching up front. It is refreshed cheaply: a query to an index older than a few seconds (more when
 * building is slow) answers at once from what is there and starts a rebuild, and a query that finds
 * nothing waits for one — so files the agent just created show up on the next keystrokes.
 */
export class FileIndex {
  private snapshot: Snapshot | null = null;
  private building: Promise<void> | null = null;
  /** When the snapshot's listing began. */
  private builtAt = 0;
  private buildMs = 0;
  private controller = new AbortController();

  constructor(
    private readonly environment: Environment,
    private readonly workspace: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** Start building unless a build runs or the index is fresh; resolves when the running build ends. */
  refresh(maxAgeMs = FRESH_MS): Promise<void> {
    if (this.building) return this.building;
    if (this.snapshot && this.now() - this.builtAt < Math.max(maxAgeMs, this.buildMs * 5)) return Promise.resolve();
    this.building = this.build()
      .catch(() => {
        // A failed listing keeps the previous index; the next query tries again.
      })
      .finally(() => (this.building = null));
    return this.building;
  }

  /** The best matches for `query` (fuzzy over the whole path, favouring the file name). Waits for the first build only. */
  async search(query: string, limit: number): Promise<FileSearchResult> {
    const pending = this.refresh();
    if (!this.snapshot) await pending;
    const snapshot = this.snapshot;
    const indexing = this.building !== null;
    if (!snapshot) return { files: [], indexed: 0, indexing, capped: false };
    const base = { indexed: snapshot.paths.length, indexing, capped: snapshot.capped };
    const text = query.trim();
    if (!text) return { ...base, files: snapshot.shallow.slice(0, limit).map((path) => ({ path, positions: [] })) };
    const results = fuzzysortPackage().go(text, snapshot.targets, { limit, threshold: 0.2 });
    if (!results.length && this.now() - this.builtAt > RECHECK_MS) {
      await this.refresh(RECHECK_MS);
      if (this.snapshot !== snapshot) return this.search(query, limit);
    }
    return { ...base, files: results.map((r) => ({ path: r.target, positions: [...r.indexes] })) };
  }

  close(): void {
    this.controller.abort();
  }

  private async build(): Promise<void> {
    const started = performance.now();
    // The listing shows the disk as it was when it began: its age counts from then, so a file created while a slow
    // build ran (under load: seconds) is looked for again at the next miss instead of waiting out a "fresh" index.
    const listedAt = this.now();
    const args = [...commonArgs({ lineBuffered: false }), '--files', ...exclusionArgs()];
    const result = await runRipgrep(args, {
      environment: this.environment,
      cwd: this.workspace,
      signal: this.controller.signal,
      timeoutMs: LIST_TIMEOUT_MS,
      maxBytes: 64 * 1024 * 1024,
    });
    if (this.controller.signal.aborted) return;
    const records = completeRecords(result.stdout);
    const files: string[] = [];
    let capped = result.capped || result.timedOut;
    for (const [i, record] of records.entries()) {
      if (i % BATCH === BATCH - 1) await yieldToEvents();
      if (!record) continue;
      let path = process.platform === 'win32' ? record.replace(/\\/g, '/') : record;
      if (path.startsWith('./')) path = path.slice(2);
      // Relative to the workspace, with a leading slash so folder rules (`/.aws/credentials`) still match.
      if (isSensitivePath(`/${path}`)) continue;
      if (files.length >= MAX_INDEXED) {
        capped = true;
        break;
      }
      files.push(path);
    }
    const paths = [...files, ...foldersOf(files)];
    const targets: Prepared[] = [];
    const fuzzysort = fuzzysortPackage();
    for (let i = 0; i < paths.length; i += BATCH) {
      for (const path of paths.slice(i, i + BATCH)) targets.push(fuzzysort.prepare(path));
      await yieldToEvents();
      if (this.controller.signal.aborted) return;
    }
    const shallow = paths.slice().sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0));
    this.snapshot = { paths, shallow: shallow.slice(0, 500), targets, capped };
    this.builtAt = listedAt;
    this.buildMs = performance.now() - started;
  }
}
