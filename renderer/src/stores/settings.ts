import { create } from 'zustand';
import type { PublicSettings, RemoteConnection, WorkspaceInfo } from '#protocol';

interface SettingsState {
  settings: PublicSettings | null;
  workspace: WorkspaceInfo | null;
  setSettings(settings: PublicSettings): void;
  setWorkspace(workspace: WorkspaceInfo): void;
  /** A remote workspace's connection changed. */
  setRemote(remote: RemoteConnection): void;
}

export const useSettings = create<SettingsState>()((set) => ({
  settings: null,
  workspace: null,
  setSettings: (settings) => set({ settings }),
  setWorkspace: (workspace) => set({ workspace }),
  setRemote: (remote) => set((s) => (s.workspace ? { workspace: { ...s.workspace, remote } } : {})),
}));
