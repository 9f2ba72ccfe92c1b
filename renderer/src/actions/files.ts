import type { FileSearchResult, WorkspaceFileView } from '#protocol';
import { deft } from '../bridge';
import { useViewer } from '../stores/viewer';
import { attempt } from './attempt';

// Files the user points at: the @-mention picker and the read-only viewer.

/** Workspace files matching what was typed after `@` (fuzzy). Failures give an empty list: the picker says so. */
export async function searchFiles(query: string, limit = 50): Promise<FileSearchResult | null> {
  try {
    return await deft.searchFiles({ query, limit });
  } catch {
    return null;
  }
}

/** Open a file in the viewer pane (read-only). */
export function viewFile(path: string): Promise<void> {
  useViewer.getState().show({ path, file: null, error: null });
  return deft.readWorkspaceFile({ path }).then(
    (file: WorkspaceFileView) => useViewer.getState().loaded(path, file),
    (error: unknown) => useViewer.getState().failed(path, error),
  );
}

/** Hand a workspace file to the system's editor (desktop only). */
export function openInEditor(path: string): Promise<void> {
  return attempt(async () => {
    await deft.openInEditor({ path });
  });
}
