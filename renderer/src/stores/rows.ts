import type { Handlers } from './session-slice';

// The transcript's rows, as the domains that add them see it: every row has a kind, an id and
// (mostly) a turn. transcript.ts gathers the kinds into one union; a domain knows only its own.

export interface Row {
  kind: string;
  id: string;
  turnId?: string;
}

/** A line of text in the transcript: a stop, a retry, an error, a mode switch, an undo. */
export interface NoticeItem extends Row {
  kind: 'notice';
  level: 'info' | 'warning' | 'error';
  text: string;
  code?: string;
  /** A model call waiting to be retried: when (epoch ms), and which attempt comes next. */
  retry?: { at: number; attempt: number; maxAttempts: number };
}

/** What a domain adds to (or changes in) the transcript for the events it owns. */
export type RowHandlers = Handlers<readonly Row[]>;

// Replaying a long session applies thousands of events in one batch. So that each costs the same
// however long the transcript is, rows are found through an index by id (kept per array, handed on to
// the array that replaces it), and an array made during a batch is changed in place until the batch
// ends (reduce() seals it): the rows are copied once per batch, not once per event. Arrays outside a
// batch are never changed.

/** Arrays made during the current batch: only these are changed in place. */
const drafts = new WeakSet<readonly Row[]>();
/** Where each row is, by id, for an array (the last row with an id wins, as a search from the end finds it). */
const positions = new WeakMap<readonly Row[], Map<string, number>>();

function positionsOf(rows: readonly Row[]): Map<string, number> {
  let map = positions.get(rows);
  if (!map) {
    map = new Map();
    for (let i = 0; i < rows.length; i++) map.set(rows[i]!.id, i);
    positions.set(rows, map);
  }
  return map;
}

/** The rows as an array this batch may change: themselves if made in this batch, else a copy that takes over their index. */
function draft<R extends Row>(rows: readonly R[]): R[] {
  if (drafts.has(rows)) return rows as R[];
  const copy = rows.slice();
  const map = positions.get(rows);
  if (map) {
    positions.delete(rows);
    positions.set(copy, map);
  }
  drafts.add(copy);
  return copy;
}

/** The batch is over: the rows are published and never changed again. */
export function sealRows(rows: readonly Row[]): void {
  drafts.delete(rows);
}

/** Where the row with this id is, or -1. */
export function indexFromEnd(rows: readonly Row[], id: string): number {
  const at = positionsOf(rows).get(id);
  return at !== undefined && rows[at]?.id === id ? at : -1;
}

/** The row with this id, if there is one. */
export function rowById<R extends Row>(rows: readonly R[], id: string): R | undefined {
  const at = indexFromEnd(rows, id);
  return at < 0 ? undefined : rows[at];
}

/** The rows with one more at the end. */
export function appendRow<R extends Row>(rows: readonly R[], row: R): R[] {
  const map = positionsOf(rows);
  const next = draft(rows);
  next.push(row);
  map.set(row.id, next.length - 1);
  return next;
}

/** The rows with the one at `index` replaced (by a row with the same id). */
export function replaceAt<R extends Row>(rows: readonly R[], index: number, row: R): R[] {
  const next = draft(rows);
  next[index] = row;
  return next;
}

/** The rows with `row` put at `index`; the rows after it move down by one. */
export function insertAt<R extends Row>(rows: readonly R[], index: number, row: R): R[] {
  if (index >= rows.length) return appendRow(rows, row);
  const map = positionsOf(rows);
  const next = draft(rows);
  next.splice(index, 0, row);
  for (let i = index; i < next.length; i++) map.set(next[i]!.id, i);
  return next;
}

/** The rows without the one at `index`; the rows after it move up by one. */
export function removeAt<R extends Row>(rows: readonly R[], index: number): R[] {
  const map = positionsOf(rows);
  const next = draft(rows);
  const [removed] = next.splice(index, 1);
  if (removed && map.get(removed.id) === index) map.delete(removed.id);
  for (let i = index; i < next.length; i++) map.set(next[i]!.id, i);
  return next;
}

/** The rows without the row of this id; the same array when there is none. */
export function removeRow<R extends Row>(rows: readonly R[], id: string): readonly R[] {
  const index = indexFromEnd(rows, id);
  return index < 0 ? rows : removeAt(rows, index);
}

/** The rows with the row of this id updated; the same array when there is none. */
export function replaceRow<R extends Row>(rows: R[], id: string, update: (row: R) => R): R[];
export function replaceRow<R extends Row>(rows: readonly R[], id: string, update: (row: R) => R): readonly R[];
export function replaceRow<R extends Row>(rows: readonly R[], id: string, update: (row: R) => R): readonly R[] {
  const index = indexFromEnd(rows, id);
  return index < 0 ? rows : replaceAt(rows, index, update(rows[index]!));
}

/** The id of a turn's prompt row: the turn's first row. */
export const promptRowId = (turnId: string) => `${turnId}:u`;

/** Where a turn's rows begin (its prompt), or 0 when its prompt is not in the rows. */
export function turnStart(rows: readonly Row[], turnId: string): number {
  return Math.max(0, indexFromEnd(rows, promptRowId(turnId)));
}

export const infoNotice = (id: string, text: string): NoticeItem => ({ kind: 'notice', id, level: 'info', text });
