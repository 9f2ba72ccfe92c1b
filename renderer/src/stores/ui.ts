import { create } from 'zustand';

interface UiState {
  connection: 'connecting' | 'open' | 'closed';
  settingsOpen: boolean;
  /** A failure outside a turn (a command that failed), shown in the banner. */
  banner: { message: string; code?: string } | null;
  setConnection(state: UiState['connection']): void;
  openSettings(open: boolean): void;
  showBanner(banner: UiState['banner']): void;
}

export const useUi = create<UiState>()((set) => ({
  connection: 'connecting',
  settingsOpen: false,
  banner: null,
  setConnection: (connection) => set({ connection }),
  openSettings: (settingsOpen) => set({ settingsOpen }),
  showBanner: (banner) => set({ banner }),
}));
