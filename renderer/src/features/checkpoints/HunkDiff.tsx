import type { DiffHunk } from '#protocol';
import { DiffView } from '../files/DiffView';

type Hunk = DiffHunk;

/** A diff given as hunks only (no whole texts), as checkpoints send them. */
export function HunkDiff({
  path,
  hunks,
  added,
  removed,
  truncated,
  showPath = false,
}: {
  path: string;
  hunks: Hunk[];
  added?: number | null;
  removed?: number | null;
  truncated?: boolean;
  showPath?: boolean;
}) {
  return (
    <DiffView
      display={{
        path,
        before: '',
        after: '',
        hunks,
        ...(added !== undefined && added !== null ? { added } : {}),
        ...(removed !== undefined && removed !== null ? { removed } : {}),
        ...(truncated ? { truncated } : {}),
      }}
      showPath={showPath}
    />
  );
}
