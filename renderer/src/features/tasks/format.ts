import { collapseCarriageReturns } from '../../../../protocol/terminal-text';

/** "850 ms", "4.2 s", "3 min 5 s", "2 h 10 min". */
export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** "in 4 min (09:00)", "in 3 h (Tue 09:00)", "in 12 days (Mar 14, 09:00)". */
export function formatNextFire(at: number | null, now: number): string {
  if (at === null) return 'never again';
  const d = new Date(at);
  const time = d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  const ms = at - now;
  const sameDay = new Date(now).toDateString() === d.toDateString();
  const when = sameDay ? time : ms < 6 * 86_400_000 ? `${d.toLocaleDateString(undefined, { weekday: 'short' })} ${time}` : `${d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })}, ${time}`;
  if (ms <= 0) return `due now (waiting for the session to be idle)`;
  const minutes = Math.round(ms / 60_000);
  const rel = minutes < 1 ? 'in under a minute' : minutes < 60 ? `in ${minutes} min` : minutes < 48 * 60 ? `in ${Math.round(minutes / 60)} h` : `in ${Math.round(minutes / 1440)} days`;
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
