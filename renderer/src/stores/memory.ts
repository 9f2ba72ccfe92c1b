import { create } from 'zustand';
import type { MemoryOverview } from '#protocol';

interface MemoryState {
  overview: MemoryOverview | null;
  /** A line typed after `#`, waiting for the user to say which file it goes to. */
  pendingLine: string | null;
  setOverview(overview: MemoryOverview): void;
  setPendingLine(line: string | null): void;
}

/** The instruction files in effect as the core last reported them (Settings → Memory), and a `#` line being placed. */
export const useMemory = create<MemoryState>()((set) => ({
  overview: null,
  pendingLine: null,
  setOverview: (overview) => set({ overview }),
  setPendingLine: (pendingLine) => set({ pendingLine }),
}));
