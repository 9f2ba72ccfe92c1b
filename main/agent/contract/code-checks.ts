import type { CodeDiagnostics } from '#protocol';

/** What a language server said about a file a tool just wrote. */
export interface WriteCheck {
  /** For the card: the problems the change introduced (first few) and how many more. */
  diagnostics: CodeDiagnostics;
  /** For the model: a few lines to append to the tool's result ('' when nothing was introduced). */
  text: string;
}

/**
 * Code intelligence as the file tools use it (ToolEnv.codeChecks): a language server sees every file the agent reads
 * and writes, and tells what a write broke. Never throws; a slow or missing server means no answer, not a failure.
 */
export interface CodeChecks {
  /** A tool read `path` (absolute): its server may start and open it, so a later edit is checked quickly. Nothing waits. */
  touched(path: string): void;
  /**
   * A tool wrote `after` where `before` was (null: it created the file): the errors the change introduced, within the
   * wait the settings allow. Null when no server checked the file in time.
   */
  afterWrite(path: string, before: string | null, after: string, signal: AbortSignal): Promise<WriteCheck | null>;
}
