// toLocaleDateString builds a formatter on every call (~1 ms); the sidebar formats each row on every render.
const thisYear = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const withYear = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', year: 'numeric' });

/** "just now", "5 min ago", "3 h ago", "yesterday", or a date. */
export function relativeTime(then: number, now: number = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 45) return 'just now';
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days === 1) return 'yesterday';
  if (days < 7) return `${days} days ago`;
  return (days > 300 ? withYear : thisYear).format(then);
}
