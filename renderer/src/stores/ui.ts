import { create } from 'zustand';

const SIDEBAR_KEY = 'deft-sidebar';

interface UiState {
  connection: 'connecting' | 'open' | 'closed';
  settingsOpen: boolean;
  /** The Settings page shown (an id from the pages list; the first page when null). */
  settingsPage: string | null;
  /** A failure outside a turn (a command that failed), shown in the banner. */
  banner: { message: string; code?: string } | null;
  /** On a wide window: the user hid the sidebar (Ctrl+B); remembered. */
  sidebarCollapsed: boolean;
  /** On a narrow window: the sidebar is open as a drawer over the conversation. */
  drawerOpen: boolean;
  /** The keyboard shortcuts sheet (Ctrl+/). */
  shortcutsOpen: boolean;
  /** A plan review the user set aside to read the conversation (it waits as a bar in the dock). */
  hiddenPlan: string | null;
  setConnection(state: UiState['connection']): void;
  openSettings(open: boolean, page?: string): void;
  showBanner(banner: UiState['banner']): void;
  setSidebarCollapsed(collapsed: boolean): void;
  setDrawerOpen(open: boolean): void;
  setShortcutsOpen(open: boolean): void;
  setHiddenPlan(requestId: string | null): void;
}

export const useUi = create<UiState>()((set) => ({
  connection: 'connecting',
  settingsOpen: false,
  settingsPage: null,
  banner: null,
  sidebarCollapsed: typeof localStorage !== 'undefined' && localStorage.getItem(SIDEBAR_KEY) === 'collapsed',
  drawerOpen: false,
  shortcutsOpen: false,
  hiddenPlan: null,
  setConnection: (connection) => set({ connection }),
  openSettings: (settingsOpen, page) => set((s) => ({ settingsOpen, settingsPage: page ?? s.settingsPage })),
  showBanner: (banner) => set({ banner }),
  setSidebarCollapsed: (sidebarCollapsed) => {
    localStorage.setItem(SIDEBAR_KEY, sidebarCollapsed ? 'collapsed' : 'open');
    set({ sidebarCollapsed });
  },
  setDrawerOpen: (drawerOpen) => set({ drawerOpen }),
  setShortcutsOpen: (shortcutsOpen) => set({ shortcutsOpen }),
  setHiddenPlan: (hiddenPlan) => set({ hiddenPlan }),
}));
