import type { DiffHunk } from '#protocol';
import { DIFF_MAX_HUNK_LINES, diffTexts } from '#infra/text/diff-hunks';
import type { CheckpointStoreApi } from './store/store-api';

type Hunk = DiffHunk;

/** Files larger than this are compared by their line counts only, without hunks. */
const MAX_DIFF_BYTES = 2 * 1024 * 1024;

export interface BlobDiff {
  binary: boolean;
  hunks: Hunk[];
  truncated: boolean;
}

/** A file's content as text, or null when it is binary (a NUL byte early on). */
export function asText(content: Buffer): string | null {
  return content.subarray(0, 8_000).includes(0) ? null : content.toString('utf8');
}

/** Read a blob ('' for none: the file does not exist on that side). */
export async function blobText(store: CheckpointStoreApi, blob: string): Promise<{ text: string | null; size: number }> {
  if (!blob) return { text: '', size: 0 };
  const content = await store.blob(blob);
  return { text: asText(content), size: content.length };
}

/**
 * The hunks that turn one version of a file into another (blob ids; '' = no file), capped at
 * `maxLines` hunk lines; binary or very large files get none.
 */
export async function blobDiff(store: CheckpointStoreApi, from: string, to: string, maxLines = DIFF_MAX_HUNK_LINES): Promise<BlobDiff> {
  const [a, b] = await Promise.all([blobText(store, from), blobText(store, to)]);
  if (a.text === null || b.text === null) return { binary: true, hunks: [], truncated: false };
  if (a.size + b.size > MAX_DIFF_BYTES) return { binary: false, hunks: [], truncated: true };
  const { hunks } = diffTexts(a.text, b.text);
  return capHunks(hunks, maxLines);
}

function capHunks(hunks: Hunk[], maxLines: number): BlobDiff {
  const kept: Hunk[] = [];
  let budget = maxLines;
  for (const hunk of hunks) {
    if (hunk.lines.length > budget) return { binary: false, hunks: kept, truncated: true };
    kept.push(hunk);
    budget -= hunk.lines.length;
  }
  return { binary: false, hunks: kept, truncated: false };
}
