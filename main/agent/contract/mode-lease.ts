import { z } from 'zod';
import { PermissionMode } from '#protocol/schemas/approvals';
import { stateSlot } from './state';

/**
 * A permission mode lent to a session for a while, in force instead of the session's own mode: a goal the
 * user started to run without asking holds yolo while it is active. The holder sets it and clears it (the
 * session's own mode is then in force again); the approvals capability decides with it and tells the model
 * and the window when it starts and ends (Capability.onStateChanged). A user who switches the mode ends it.
 */
export const ModeLease = z
  .object({
    mode: PermissionMode,
    /** Who holds it (`goal`). */
    holder: z.string(),
    /** Why, in a few words for the model and the window: "while the goal runs (started without asking)". */
    reason: z.string(),
    /** What the window says when it ends: "the goal stopped". */
    endReason: z.string(),
  })
  .strict();
export type ModeLease = z.infer<typeof ModeLease>;

export const modeLeaseSlot = stateSlot<ModeLease | null>('permissions.lease', ModeLease.nullable(), null);
