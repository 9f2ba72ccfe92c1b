import { create } from 'zustand';
import { DeftError } from '#protocol/helpers/bridge';
import type { WorkspaceFileView } from '#protocol';

/** The file open in the read-only viewer pane, while it loads, or why it could not be shown. */
export interface ViewerState {
  open: { path: string; file: WorkspaceFileView | null; error: string | null } | null;
  show(open: ViewerState['open']): void;
  loaded(path: string, file: WorkspaceFileView): void;
  failed(path: string, error: unknown): void;
  close: () => void;
}

export const useViewer = create<ViewerState>()((set, get) => ({
  open: null,
  show: (open) => set({ open }),
  // Only the file asked for last is shown (a slow answer for an earlier click is dropped).
  loaded: (path, file) => get().open?.path === path && set({ open: { path, file, error: null } }),
  failed: (path, error) => get().open?.path === path && set({ open: { path, file: null, error: DeftError.from(error).detail } }),
  close: () => set({ open: null }),
}));
