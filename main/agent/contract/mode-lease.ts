import { z } from 'zod';
import { permissionModeSchema } from '#protocol/schemas/approvals';
import { builtOnce } from '#protocol/helpers/built-once';
import { stateSlot } from './state';

/**
 * A permission mode lent to a session for a while, in force instead of the session's own mode: a goal the
 * user started to run without asking holds yolo while it is active. The holder sets it and clears it (the
 * session's own mode is then in force again); the approvals capability decides with it and tells the model
 * and the window when it starts and ends (Capability.onStateChanged). A user who switches the mode ends it.
 */
const buildModeLease = () =>
  z
    .object({
      mode: permissionModeSchema(),
      /** Who holds it (`goal`). */
      holder: z.string(),
      /** Why, in a few words for the model and the window: "while the goal runs (started without asking)". */
      reason: z.string(),
      /** What the window says when it ends: "the goal stopped". */
      endReason: z.string(),
    })
    .strict();
/** The lease's schema, built the first time a lease is checked. */
export const modeLeaseSchema: () => ReturnType<typeof buildModeLease> = builtOnce(buildModeLease);
export type ModeLease = z.infer<ReturnType<typeof buildModeLease>>;

export const modeLeaseSlot = stateSlot<ModeLease | null>('permissions.lease', () => modeLeaseSchema().nullable(), null);
