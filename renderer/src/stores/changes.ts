import { structuredPatch } from 'diff';
import type { DiffHunk, ToolResultDisplay } from '#protocol';
import { type Row, type RowHandlers, appendRow, indexFromEnd, insertAt, removeAt, replaceAt, turnStart } from './rows';

type Hunk = DiffHunk;
type DiffDisplay = Extract<ToolResultDisplay, { kind: 'diff' }>;

/** One file changed in a turn, with its net line counts and the calls that changed it (none when known from checkpoints). */
export interface ChangedFile {
  path: string;
  added: number;
  removed: number;
  callIds: string[];
  status?: 'added' | 'deleted' | 'modified';
  binary?: boolean;
}

/**
 * The transcript item listing a turn's changed files (shown after the turn ends). From the tools' diffs
 * first; replaced by the checkpoints' list (every change, shell commands' too) when it arrives.
 */
export interface ChangesItem extends Row {
  kind: 'changes';
  turnId: string;
  files: ChangedFile[];
  /** From the checkpoints before and after the turn: the review pane can show and revert them. */
  checkpointed?: boolean;
  more?: number;
}

/** The display's hunks, or hunks computed from its texts when a tool sent none. */
export function hunksOf(display: Pick<DiffDisplay, 'before' | 'after' | 'hunks'>): Hunk[] {
  if (display.hunks) return display.hunks;
  return structuredPatch('a', 'b', display.before ?? '', display.after ?? '', '', '', { context: 3 }).hunks;
}

export function countChanges(hunks: readonly Hunk[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  }
  return { added, removed };
}

interface ToolLike extends Row {
  result?: { isError: boolean; display?: ToolResultDisplay };
}

/** Every file a turn's tool calls changed (results with a diff), in the order first changed. The turn's rows begin at `from`. */
export function changedFiles(rows: readonly ToolLike[], turnId: string, from = 0): ChangedFile[] {
  const byPath = new Map<string, ChangedFile>();
  for (let i = from; i < rows.length; i++) {
    const row = rows[i]!;
    const display = row.kind === 'tool' && row.turnId === turnId && !row.result?.isError ? row.result?.display : undefined;
    if (display?.kind !== 'diff') continue;
    const counts =
      display.added !== undefined && display.removed !== undefined ? { added: display.added, removed: display.removed } : countChanges(hunksOf(display));
    const entry = byPath.get(display.path) ?? { path: display.path, added: 0, removed: 0, callIds: [] };
    entry.added += counts.added;
    entry.removed += counts.removed;
    entry.callIds.push(row.id);
    byPath.set(display.path, entry);
  }
  return [...byPath.values()];
}

/** When a turn ends, the files it changed, as one row; the checkpoints' list replaces the tools' when it comes. */
export const changeRows: RowHandlers = {
  'turn.ended': (rows, event) => {
    const files = changedFiles(rows, event.turnId, turnStart(rows, event.turnId));
    if (!files.length) return rows;
    const item: ChangesItem = { kind: 'changes', id: `${event.turnId}:changes`, turnId: event.turnId, files };
    return appendRow(rows, item);
  },
  'turn.changes': (rows, event) => {
    const id = `${event.turnId}:changes`;
    const files: ChangedFile[] = event.files.map((f) => ({
      path: f.path,
      added: f.added ?? 0,
      removed: f.removed ?? 0,
      callIds: [],
      status: f.status,
      binary: f.added === null,
    }));
    const item: ChangesItem = { kind: 'changes', id, turnId: event.turnId, files, checkpointed: true, more: event.more };
    const at = indexFromEnd(rows, id);
    if (at >= 0) return files.length ? replaceAt<Row>(rows, at, item) : removeAt(rows, at);
    if (!files.length) return rows;
    // After the turn's last row, before anything later.
    const start = turnStart(rows, event.turnId);
    let last = rows.length - 1;
    while (last >= start && rows[last]!.turnId !== event.turnId) last--;
    return last < start ? appendRow<Row>(rows, item) : insertAt<Row>(rows, last + 1, item);
  },
};
