// Durations and sizes in words, the same for the model (tool results) and the UI (tasks panel).

/** "850 ms", "4.2 s", "42 s", "3 min 5 s", "2 min", "2 h 10 min", "3 h". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min${s % 60 ? ` ${s % 60} s` : ''}`;
  return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ''}`;
}

/** Token counts, short: "950", "1.2k", "12k", "128k". */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k`;
  return `${Math.round(n / 1000)}k`;
}

const BYTE_UNITS = ['KiB', 'MiB', 'GiB', 'TiB'];

/** Sizes, the one way Deft writes them (tool results and the window): "512 B", "1.5 KiB", "16 MiB", "282 KiB", "2 GiB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  // Whole numbers and large values without a decimal; below 100 one decimal says enough.
  return `${value >= 100 || Number.isInteger(value) ? value.toFixed(0) : value.toFixed(1)} ${BYTE_UNITS[unit]}`;
}
