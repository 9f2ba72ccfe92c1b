import { z } from 'zod';

// Files the user points at: the @-mention picker over the workspace, and the read-only file viewer.

/** One file the @-mention picker offers: its workspace-relative path and the matched character positions. */
export const FileMatch = z.object({ path: z.string(), positions: z.array(z.number().int()) });
export type FileMatch = z.infer<typeof FileMatch>;

/** What the picker shows for a query. `indexing` is true while the workspace's file index is (re)built in the background. */
export const FileSearchResult = z.object({
  files: z.array(FileMatch),
  /** Files in the index (secret files and what .gitignore ignores are never in it). */
  indexed: z.number().int(),
  indexing: z.boolean(),
  /** The workspace holds more files than the index keeps. */
  capped: z.boolean(),
});
export type FileSearchResult = z.infer<typeof FileSearchResult>;

/**
 * A file the user referred to in a prompt with `@`: a workspace-relative path, or a file dropped into
 * the window (saved with the session; then `path` is absolute). `label` is the text shown in the prompt.
 */
export const Mention = z.object({ path: z.string().min(1).max(4096), label: z.string().min(1).max(300) }).strict();
export type Mention = z.infer<typeof Mention>;

/** A file shown in the read-only viewer. */
export const WorkspaceFileView = z.object({
  /** Workspace-relative when inside the workspace, else absolute. */
  path: z.string(),
  content: z.string(),
  /** Lines in the whole file (the content may be cut). */
  totalLines: z.number().int(),
  size: z.number().int(),
  truncated: z.boolean(),
  /** Whether the host can open it in the system's editor (Electron). */
  canOpenExternally: z.boolean(),
});
export type WorkspaceFileView = z.infer<typeof WorkspaceFileView>;

/** Longest query the picker accepts (characters). */
export const MAX_FILE_QUERY = 500;
