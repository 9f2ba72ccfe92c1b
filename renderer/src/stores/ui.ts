import { create } from 'zustand';

interface UiState {
  connection: 'connecting' | 'open' | 'closed';
  settingsOpen: boolean;
  /** The Settings page shown (an id from the pages list; the first page when null). */
  settingsPage: string | null;
  /** A failure outside a turn (a command that failed), shown in the banner. */
  banner: { message: string; code?: string } | null;
  setConnection(state: UiState['connection']): void;
  openSettings(open: boolean, page?: string): void;
  showBanner(banner: UiState['banner']): void;
}

export const useUi = create<UiState>()((set) => ({
  connection: 'connecting',
  settingsOpen: false,
  settingsPage: null,
  banner: null,
  setConnection: (connection) => set({ connection }),
  openSettings: (settingsOpen, page) => set((s) => ({ settingsOpen, settingsPage: page ?? s.settingsPage })),
  showBanner: (banner) => set({ banner }),
}));
