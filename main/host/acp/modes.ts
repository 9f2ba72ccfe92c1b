import type { SessionMode, SessionModeState } from '@agentclientprotocol/sdk';
import type { PermissionMode } from '#protocol';

// Deft's permission modes and plan mode, as the one list of modes ACP has. Plan mode is its own mode: in it the
// agent only reads and writes its plan file, whatever the permission mode underneath.

export const PLAN_MODE = 'plan';

const MODES: readonly SessionMode[] = [
  { id: 'ask', name: 'Ask', description: 'Ask before edits, commands and anything the rules do not allow.' },
  { id: 'accept-edits', name: 'Accept edits', description: 'Edit files in the workspace without asking; ask for the rest.' },
  { id: 'yolo', name: 'Yolo', description: 'Run everything without asking (deny rules and the sandbox still hold).' },
  { id: PLAN_MODE, name: 'Plan', description: 'Read and plan only; the plan is reviewed before any change.' },
];

export function modeId(permission: PermissionMode, plan: boolean): string {
  return plan ? PLAN_MODE : permission;
}

export function modeState(permission: PermissionMode, plan: boolean): SessionModeState {
  return { currentModeId: modeId(permission, plan), availableModes: [...MODES] };
}

/** What an ACP mode id asks for, or null for one Deft does not have. */
export function parseMode(id: string): { plan: true } | { plan: false; permission: PermissionMode } | null {
  if (id === PLAN_MODE) return { plan: true };
  if (id === 'ask' || id === 'accept-edits' || id === 'yolo') return { plan: false, permission: id };
  return null;
}
