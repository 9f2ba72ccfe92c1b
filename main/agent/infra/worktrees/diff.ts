import { snapshotTree } from './merge';
import type { WorktreeMachine } from './machine';
import type { WorktreeRecord } from './records';
import { git, nulList } from './run';

/** At most this many files are listed (the rest are counted in `more`). */
export const CHANGES_MAX_FILES = 300;
/** A file's diff keeps at most this many lines of hunks (then `truncated`). */
export const CHANGES_MAX_FILE_LINES = 4000;
/** The whole answer keeps at most this many diff lines (files after that are listed without hunks, `truncated`). */
export const CHANGES_MAX_TOTAL_LINES = 40_000;

export interface ChangeHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

export interface WorktreeFileChange {
  path: string;
  status: 'added' | 'deleted' | 'modified';
  added: number | null;
  removed: number | null;
  binary: boolean;
  hunks: ChangeHunk[];
  truncated?: boolean;
}

export interface WorktreeChanges {
  /** The commit the diff is taken from: where its branch and its base branch meet (its base commit when that is gone). */
  base: string;
  /** Its branch's commit (HEAD in the worktree) and the tree of its files (committed or not) the diff is of. */
  head: string;
  tree: string;
  files: WorktreeFileChange[];
  /** More files changed than are listed. */
  more: number;
}

const STATUS: Record<string, WorktreeFileChange['status']> = { A: 'added', D: 'deleted' };

/** `@@ -a,b +c,d @@` → numbers (a count left out is 1). */
function hunkHeader(line: string): Omit<ChangeHunk, 'lines'> | null {
  const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
  if (!m) return null;
  return { oldStart: Number(m[1]), oldLines: m[2] === undefined ? 1 : Number(m[2]), newStart: Number(m[3]), newLines: m[4] === undefined ? 1 : Number(m[4]) };
}

/** The hunks of one file's section of `git diff` output (its `diff --git` header and all). */
export function parseHunks(section: string, maxLines: number): { hunks: ChangeHunk[]; truncated: boolean; lines: number } {
  const hunks: ChangeHunk[] = [];
  let current: ChangeHunk | null = null;
  let lines = 0;
  for (const line of section.split('\n')) {
    const header = line.startsWith('@@') ? hunkHeader(line) : null;
    if (header) {
      if (lines >= maxLines) return { hunks, truncated: true, lines };
      current = { ...header, lines: [] };
      hunks.push(current);
      continue;
    }
    if (!current || !/^[ +\-\\]/.test(line)) continue;
    if (lines >= maxLines) return { hunks, truncated: true, lines };
    current.lines.push(line);
    lines++;
  }
  return { hunks, truncated: false, lines };
}

/**
 * What a worktree changed against its base, for its *Changes* view: committed on its branch or not (copied files
 * left out), from where its branch and its base branch meet — what a merge would bring. Nothing is changed anywhere.
 */
export async function worktreeChanges(m: WorktreeMachine, record: WorktreeRecord): Promise<WorktreeChanges> {
  const tree = await snapshotTree(m, record);
  const head = (await git(m, record.path, ['rev-parse', 'HEAD'])).stdout.toString('utf8').trim();
  const baseRef = record.baseBranch ? `refs/heads/${record.baseBranch}` : record.baseCommit;
  const base = (await git(m, record.repoRoot, ['merge-base', baseRef, head], { okCodes: [0, 1] })).stdout.toString('utf8').trim() || record.baseCommit;
  const range = ['--no-renames', base, tree];
  const named = nulList((await git(m, record.path, ['diff', '--name-status', '-z', ...range])).stdout);
  const entries: Array<{ path: string; status: WorktreeFileChange['status'] }> = [];
  for (let i = 0; i + 1 < named.length; i += 2) entries.push({ status: STATUS[named[i]!.charAt(0)] ?? 'modified', path: named[i + 1]! });
  const numbers = nulList((await git(m, record.path, ['diff', '--numstat', '-z', ...range])).stdout).map((row) => row.split('\t'));
  const patch = (await git(m, record.path, ['diff', '--no-color', '-U3', ...range])).stdout.toString('utf8');
  // One section per file, in the order --name-status lists them (the same diff, the same order).
  const sections = patch.split(/^(?=diff --git )/m).filter((s) => s.startsWith('diff --git '));
  const files: WorktreeFileChange[] = [];
  let total = 0;
  entries.slice(0, CHANGES_MAX_FILES).forEach((entry, i) => {
    const [add, del] = numbers[i] ?? [];
    const binary = add === '-' && del === '-';
    const room = Math.max(0, Math.min(CHANGES_MAX_FILE_LINES, CHANGES_MAX_TOTAL_LINES - total));
    const parsed = binary ? { hunks: [], truncated: false, lines: 0 } : parseHunks(sections[i] ?? '', room);
    total += parsed.lines;
    files.push({
      path: entry.path,
      status: entry.status,
      added: binary || add === undefined ? null : Number(add),
      removed: binary || del === undefined ? null : Number(del),
      binary,
      hunks: parsed.hunks,
      ...(parsed.truncated ? { truncated: true } : {}),
    });
  });
  return { base, head, tree, files, more: Math.max(0, entries.length - CHANGES_MAX_FILES) };
}
