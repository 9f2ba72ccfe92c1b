import { create } from 'zustand';

/** A remote folder to connect to as soon as the dialog opens (a sidebar row). */
export interface RemoteStart {
  host: string;
  path: string;
}

/** Whether *Open remote folder…* is open, and the folder it should connect to right away, if any. */
export const useRemoteDialog = create<{ open: boolean; start: RemoteStart | null; show(open: boolean, start?: RemoteStart): void }>()((set) => ({
  open: false,
  start: null,
  show: (open, start) => set({ open, start: open ? (start ?? null) : null }),
}));
