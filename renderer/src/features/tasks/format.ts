import { collapseCarriageReturns } from '#protocol/helpers/terminal-text';

/** "in 4 min (09:00)", "in 3 h (Tue 09:00)", "in 12 days (Mar 14, 09:00)". */
export function formatNextFire(at: number | null, now: number): string {
  if (at === null) return 'never again';
  const d = new Date(at);
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  const ms = at - now;
  const sameDay = new Date(now).toDateString() === d.toDateString();
  const when = sameDay
    ? time
    : ms < 6 * 86_400_000
      ? `${d.toLocaleDateString(undefined, { weekday: 'short' })} ${time}`
      : `${d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}, ${time}`;
  if (ms <= 0) return `due now (waiting for the session to be idle)`;
  const minutes = Math.round(ms / 60_000);
  const rel =
    minutes < 1
      ? 'in under a minute'
      : minutes < 60
        ? `in ${minutes} min`
        : minutes < 48 * 60
          ? `in ${Math.round(minutes / 60)} h`
          : `in ${Math.round(minutes / 1440)} days`;
  return `${rel} (${when})`;
}

/** Live command output as a terminal would show it (escape sequences are stripped by the core). */
export const screenText = collapseCarriageReturns;

export const STATUS_LABEL: Record<string, string> = {
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  timed_out: 'Timed out',
  killed: 'Stopped',
  lost: 'Lost',
};
