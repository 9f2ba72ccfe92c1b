import type { Schedule } from './cron-expr';

/** Recurring jobs fire up to this share of their period late… */
export const RECURRING_JITTER_SHARE = 0.1;
/** …and never more than this late. */
export const RECURRING_JITTER_MAX_MS = 15 * 60_000;
/** One-shots that land on :00 or :30 may fire up to this much early. */
export const ONE_SHOT_EARLY_MAX_MS = 90_000;

/** A fraction in [0, 1) fixed for a job (its id is 8 random hex digits), so its fires keep one offset. */
function jobFraction(id: string): number {
  const bits = Number.parseInt(id.slice(0, 8), 16);
  return Number.isFinite(bits) ? bits / 0x1_0000_0000 : 0;
}

/**
 * How far from its scheduled time a fire lands, in ms (negative: early). Many sessions (and users) pick
 * the same round times; spreading the fires keeps them from all reaching a provider in the same second.
 * Recurring jobs fire up to 10 % of their period late (at most 15 minutes); one-shots scheduled on :00 or
 * :30 fire up to 90 s early; other one-shots on time.
 */
export function fireOffsetMs(job: { id: string; recurring: boolean }, scheduled: number, schedule: Schedule): number {
  const fraction = jobFraction(job.id);
  if (job.recurring) {
    const following = schedule.next(scheduled);
    if (following === null) return 0;
    return Math.floor(fraction * Math.min((following - scheduled) * RECURRING_JITTER_SHARE, RECURRING_JITTER_MAX_MS));
  }
  const at = new Date(scheduled);
  return at.getSeconds() === 0 && at.getMinutes() % 30 === 0 ? -Math.floor(fraction * ONE_SHOT_EARLY_MAX_MS) : 0;
}
