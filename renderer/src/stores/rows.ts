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
}

/** What a domain adds to (or changes in) the transcript for the events it owns. */
export type RowHandlers = Handlers<readonly Row[]>;

/** Where the row with this id is, searching from the end (where streaming happens), or -1. */
export function indexFromEnd(rows: readonly Row[], id: string): number {
  for (let i = rows.length - 1; i >= 0; i--) if (rows[i]!.id === id) return i;
  return -1;
}

/** The rows with the one at `index` replaced. */
export function replaceAt<R>(rows: readonly R[], index: number, row: R): R[] {
  const next = rows.slice();
  next[index] = row;
  return next;
}

/** The rows with the row of this id updated; the same array when there is none. */
export function replaceRow<R extends Row>(rows: R[], id: string, update: (row: R) => R): R[];
export function replaceRow<R extends Row>(rows: readonly R[], id: string, update: (row: R) => R): readonly R[];
export function replaceRow<R extends Row>(rows: readonly R[], id: string, update: (row: R) => R): readonly R[] {
  const index = indexFromEnd(rows, id);
  return index < 0 ? rows : replaceAt(rows, index, update(rows[index]!));
}

export const infoNotice = (id: string, text: string): NoticeItem => ({ kind: 'notice', id, level: 'info', text });
