import { create } from 'zustand';
import type { PublicSettings, WorkspaceInfo } from '#protocol';

interface SettingsState {
  settings: PublicSettings | null;
  workspace: WorkspaceInfo | null;
  setSettings(settings: PublicSettings): void;
  setWorkspace(workspace: WorkspaceInfo): void;
}

export const useSettings = create<SettingsState>()((set) => ({
  settings: null,
  workspace: null,
  setSettings: (settings) => set({ settings }),
  setWorkspace: (workspace) => set({ workspace }),
}));
