import { create } from 'zustand';
import type { PermissionMode, PermissionRules } from '#protocol';

interface PermissionsState {
  /** The mode a session has until the user switches it (`permissions.defaultMode`, else ask). */
  defaultMode: PermissionMode;
  rules: PermissionRules | null;
  setRules(rules: PermissionRules): void;
  setDefaultMode(mode: PermissionMode): void;
}

/** Permission rules from the three settings files, and the problems found in them. */
export const usePermissions = create<PermissionsState>()((set) => ({
  defaultMode: 'ask',
  rules: null,
  setRules: (rules) => set({ rules }),
  setDefaultMode: (defaultMode) => set({ defaultMode }),
}));
