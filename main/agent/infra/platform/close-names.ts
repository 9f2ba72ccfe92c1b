/** The edit distance between two strings (insertions, deletions, substitutions). */
export function levenshtein(a: string, b: string): number {
  if (a === b) return 0;
  if (!a.length) return b.length;
  if (!b.length) return a.length;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Names close to `key` (a typo away, or one containing the other), closest first. */
export function closeNames(key: string, candidates: Iterable<string>, limit = 5): string[] {
  const scored: Array<{ name: string; score: number }> = [];
  const lower = key.toLowerCase();
  for (const name of candidates) {
    const other = name.toLowerCase();
    const distance = levenshtein(lower, other);
    const related = other.includes(lower) || lower.includes(other);
    // Measured on what differs after a shared prefix (mcp__server__…), so a shared prefix does not make any two names close.
    let shared = 0;
    while (shared < lower.length && shared < other.length && lower[shared] === other[shared]) shared++;
    const threshold = Math.max(2, Math.floor(Math.max(lower.length, other.length) - shared) / 3);
    if (related || distance <= threshold) scored.push({ name, score: related ? Math.min(distance, 1) : distance });
  }
  return scored
    .sort((a, b) => a.score - b.score || (a.name < b.name ? -1 : 1))
    .slice(0, limit)
    .map((s) => s.name);
}
