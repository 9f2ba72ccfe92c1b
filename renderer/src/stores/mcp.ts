import { create } from 'zustand';
import type { McpOverview } from '#protocol';

interface McpState {
  overview: McpOverview | null;
  setOverview(overview: McpOverview): void;
}

/** The MCP servers as the core last reported them (Settings → MCP servers). */
export const useMcp = create<McpState>()((set) => ({
  overview: null,
  setOverview: (overview) => set({ overview }),
}));
