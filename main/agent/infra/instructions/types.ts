/** Where an instruction file comes from: the user's own, the project's (root down to the workspace), or a subfolder's, read on first touch. */
export type InstructionScope = 'user' | 'project' | 'nested';

/** One instruction file in effect, as the model reads it. */
export interface InstructionFile {
  /** Absolute, as found (symlinks not resolved). */
  path: string;
  /** Relative to the workspace, `~/…` in the home, else absolute. */
  display: string;
  scope: InstructionScope;
  /** The file whose `@import` brought this one in (its display). */
  importedBy?: string;
  /** What the model reads (cut at the cap, with the note). */
  text: string;
  bytes: number;
  truncated: boolean;
}

/** A file that was named but not read, and why (shown in the Memory view; the model is not told). */
export interface InstructionProblem {
  display: string;
  message: string;
}

export interface InstructionSet {
  files: InstructionFile[];
  problems: InstructionProblem[];
}

/** How much is read: per file, all files together, and how deep imports go. */
export interface InstructionLimits {
  maxFileChars: number;
  maxTotalChars: number;
  maxImportDepth: number;
}

export const DEFAULT_INSTRUCTION_LIMITS: InstructionLimits = { maxFileChars: 40_000, maxTotalChars: 100_000, maxImportDepth: 5 };
