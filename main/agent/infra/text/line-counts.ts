/**
 * Lines added and removed by a minimal line diff turning `a` into `b`, or null when that diff changes `limit` lines or
 * more. A line is its text with its end (`\n`, or `\r\n`), so a last line without one differs from the same line with
 * one: the counts are those of the `diff` package's `diffLines` (any minimal diff has the same counts: its size is
 * fixed by the longest common subsequence), found by Myers' algorithm on line numbers without building the edit
 * script — a fraction of a millisecond where `diffLines` takes several (issue 36: a checkpoint's *Changed files*).
 */
export function lineEditCounts(a: string, b: string, limit: number): [number, number] | null {
  if (a === b) return [0, 0];
  // The whole lines both texts start with, and end with, are found on their characters first and left out (they are
  // in every minimal diff's common part): an edit of a few lines of a long file splits and numbers those lines only.
  const shorter = Math.min(a.length, b.length);
  let same = 0;
  while (same < shorter && a.charCodeAt(same) === b.charCodeAt(same)) same++;
  const start = same === 0 ? 0 : a.lastIndexOf('\n', same - 1) + 1;
  let tail = 0;
  while (tail < shorter - start && a.charCodeAt(a.length - 1 - tail) === b.charCodeAt(b.length - 1 - tail)) tail++;
  let endA = a.length - tail;
  let endB = b.length - tail;
  const lineStart = (text: string, at: number) => at === start || text.charCodeAt(at - 1) === 10;
  if (!lineStart(a, endA) || !lineStart(b, endB)) {
    // The common end from the first line it holds whole (after its first newline), or none.
    const newline = a.indexOf('\n', endA);
    const shift = newline < 0 ? tail : newline + 1 - endA;
    endA += shift;
    endB += shift;
  }
  if (start > 0 || endA < a.length) return middleCounts(a.slice(start, endA), b.slice(start, endB), limit);
  return middleCounts(a, b, limit);
}

function middleCounts(a: string, b: string, limit: number): [number, number] | null {
  if (a === b) return [0, 0];
  const ids = new Map<string, number>();
  const left = lineIds(a, ids);
  const right = lineIds(b, ids);
  // The lines both start and end with cost nothing to compare again.
  let start = 0;
  while (start < left.length && start < right.length && left[start] === right[start]) start++;
  let endA = left.length;
  let endB = right.length;
  while (endA > start && endB > start && left[endA - 1] === right[endB - 1]) {
    endA--;
    endB--;
  }
  const n = endA - start;
  const m = endB - start;
  const d = editSize(left.subarray(start, endA), right.subarray(start, endB), limit - 1);
  if (d === null) return null;
  // d = added + removed, and added - removed = m - n.
  return [(d + m - n) / 2, (d - m + n) / 2];
}

/** Each line as a number, equal lines the same number. */
function lineIds(text: string, ids: Map<string, number>): Int32Array {
  const out: number[] = [];
  let at = 0;
  while (at < text.length) {
    const end = text.indexOf('\n', at);
    const line = end < 0 ? text.slice(at) : text.slice(at, end + 1);
    let id = ids.get(line);
    if (id === undefined) ids.set(line, (id = ids.size));
    out.push(id);
    at = end < 0 ? text.length : end + 1;
  }
  return Int32Array.from(out);
}

/** The size of a shortest edit script (lines removed plus added), or null beyond `max` (Myers 1986, the greedy forward pass). */
function editSize(a: Int32Array, b: Int32Array, max: number): number | null {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return n + m <= max ? n + m : null;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  for (let d = 0; d <= max; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return d;
    }
  }
  return null;
}
