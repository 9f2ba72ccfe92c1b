/**
 * Where in a file an `old_string` that was not found most likely meant: the window of lines most
 * similar to it, so the model can correct its edit without reading the file again.
 */
export interface Passage {
  /** 1-based first line. */
  startLine: number;
  lines: string[];
  /** 0…1 */
  similarity: number;
  /** The passage equals old_string once whitespace is ignored. */
  whitespaceOnly: boolean;
}

/** Windows scored in full after the anchor pass. */
const CANDIDATES = 24;
const MAX_PASSAGE_LINES = 40;

function bigrams(text: string): Map<string, number> {
  const grams = new Map<string, number>();
  for (let i = 0; i < text.length - 1; i++) {
    const gram = text.slice(i, i + 2);
    grams.set(gram, (grams.get(gram) ?? 0) + 1);
  }
  return grams;
}

/** Dice similarity of two strings over character bigrams (whitespace collapsed). */
export function similarity(a: string, b: string, gramsOfA?: Map<string, number>): number {
  const x = a.replace(/\s+/g, ' ').trim();
  const y = b.replace(/\s+/g, ' ').trim();
  if (x === y) return 1;
  if (x.length < 2 || y.length < 2) return 0;
  const ga = gramsOfA ?? bigrams(x);
  const gb = bigrams(y);
  let overlap = 0;
  for (const [gram, count] of gb) overlap += Math.min(count, ga.get(gram) ?? 0);
  return (2 * overlap) / (x.length - 1 + (y.length - 1));
}

const squash = (text: string) => text.replace(/\s+/g, '');

function isSpace(code: number): boolean {
  return code === 32 || code === 9 || code === 13 || code === 11 || code === 12;
}

/** Bigram keys of a text with whitespace removed. */
function gramKeys(text: string): Set<number> {
  const keys = new Set<number>();
  let previous = -1;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isSpace(code)) continue;
    if (previous >= 0) keys.add(previous * 65536 + code);
    previous = code;
  }
  return keys;
}

/** A cheap, allocation-free stand-in for `similarity`, used to rank every line of a large file. */
function quickScore(line: string, keys: Set<number>): number {
  let previous = -1;
  let total = 0;
  let hits = 0;
  for (let i = 0; i < line.length; i++) {
    const code = line.charCodeAt(i);
    if (isSpace(code)) continue;
    if (previous >= 0) {
      total++;
      if (keys.has(previous * 65536 + code)) hits++;
    }
    previous = code;
  }
  return total + keys.size ? (2 * Math.min(hits, keys.size)) / (total + keys.size) : 0;
}

export function closestPassage(content: string, needle: string): Passage | null {
  const lines = content.split('\n');
  const target = needle.replace(/\n$/, '').split('\n');
  const span = Math.min(target.length, MAX_PASSAGE_LINES);
  if (!lines.length || !needle.trim()) return null;

  // Anchor on the needle's most distinctive lines (longest non-blank ones), then score whole windows.
  const anchors = target
    .map((text, offset) => ({ text: squash(text), offset }))
    .filter((a) => a.text.length >= 2)
    .sort((p, q) => q.text.length - p.text.length)
    .slice(0, 2);
  if (!anchors.length) return null;
  const scores = new Map<number, number>();
  for (const anchor of anchors) {
    const keys = gramKeys(anchor.text);
    for (let i = 0; i < lines.length; i++) {
      const score = quickScore(lines[i]!, keys);
      if (score === 0) continue;
      const start = Math.max(0, Math.min(i - anchor.offset, lines.length - span));
      if (score > (scores.get(start) ?? 0)) scores.set(start, score);
    }
  }
  const candidates = [...scores.entries()].sort((a, b) => b[1] - a[1]).slice(0, CANDIDATES);
  let best: Passage | null = null;
  const joined = target.slice(0, span).join('\n');
  const squashedNeedle = squash(needle);
  for (const [start] of candidates) {
    // Also try windows one line shorter/longer: the model often drops or adds a line.
    for (const length of [span, span - 1, span + 1]) {
      if (length < 1 || start + length > lines.length) continue;
      const window = lines.slice(start, start + length);
      const text = window.join('\n');
      const whitespaceOnly = squash(text) === squashedNeedle;
      const score = whitespaceOnly ? 0.99 : similarity(joined, text);
      if (!best || score > best.similarity) best = { startLine: start + 1, lines: window, similarity: score, whitespaceOnly };
    }
  }
  return best;
}
