import type { DiffHunk } from '#protocol';

type Hunk = DiffHunk;

/** A change a tool is about to write, offered for review hunk by hunk (review mode). */
export interface ChangeProposal {
  callId: string;
  turnId: string;
  toolName: string;
  /** The file as the user knows it (workspace-relative when inside it). */
  path: string;
  /** The file does not exist yet. */
  created: boolean;
  /** The change as unified-diff hunks of the current text (LF view); each is accepted or rejected on its own. */
  hunks: Hunk[];
  added: number;
  removed: number;
  signal: AbortSignal;
}

/** The user's answer: one decision per hunk, in order, and optional words for the model. */
export interface ChangeVerdict {
  accepted: boolean[];
  feedback?: string;
}

/** Reviews changes before they are written, when the user asked to (review mode). */
export interface ChangeReviewer {
  /** Whether changes to this file are reviewed before they are written. */
  reviews(path: string): boolean;
  /** Ask the user; rejects when the turn is stopped meanwhile. */
  review(proposal: ChangeProposal): Promise<ChangeVerdict>;
}
