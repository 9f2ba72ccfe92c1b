import { create } from 'zustand';

/** Whether *Open remote folder…* is open. */
export const useRemoteDialog = create<{ open: boolean; show(open: boolean): void }>()((set) => ({
  open: false,
  show: (open) => set({ open }),
}));
