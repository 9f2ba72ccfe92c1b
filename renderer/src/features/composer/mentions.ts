import type { Mention } from '#protocol';

/** The `@word` being typed at the caret: where it starts and what follows the `@`. */
export interface ActiveMention {
  start: number;
  end: number;
  query: string;
}

const MAX_QUERY = 200;
const space = (c: string | undefined) => c === undefined || /\s/.test(c);

/**
 * The `@query` the caret is in, or null. The `@` must start the text or follow a space (so an e-mail
 * address does not open the picker), and the query runs to the caret without spaces.
 */
export function activeMention(text: string, caret: number): ActiveMention | null {
  let i = caret - 1;
  while (i >= 0 && text[i] !== '@' && !space(text[i])) i--;
  if (i < 0 || text[i] !== '@' || !space(text[i - 1])) return null;
  const query = text.slice(i + 1, caret);
  return query.length > MAX_QUERY ? null : { start: i, end: caret, query };
}

/** The text with the `@query` replaced by `@path ` and where the caret goes next. */
export function insertMention(text: string, active: ActiveMention, label: string): { text: string; caret: number } {
  const rest = text.slice(active.end);
  const token = `@${label}${rest.startsWith(' ') ? '' : ' '}`;
  const next = text.slice(0, active.start) + token + rest;
  return { text: next, caret: active.start + token.length + (rest.startsWith(' ') ? 1 : 0) };
}

/** Where `@label` stands in the text as a whole token (at the start or after a space, and followed by a space or the end). */
export function tokenRanges(text: string, labels: readonly string[]): Array<{ start: number; end: number }> {
  const ranges: Array<{ start: number; end: number }> = [];
  // Longer labels first, so `@src/a.ts.bak` is not taken for `@src/a.ts`.
  for (const label of [...new Set(labels)].sort((a, b) => b.length - a.length)) {
    const token = `@${label}`;
    for (let at = text.indexOf(token); at >= 0; at = text.indexOf(token, at + 1)) {
      const end = at + token.length;
      if (!space(text[at - 1]) || !space(text[end])) continue;
      if (ranges.some((r) => at < r.end && end > r.start)) continue;
      ranges.push({ start: at, end });
    }
  }
  return ranges.sort((a, b) => a.start - b.start);
}

/** The mentions still in the text (a chip whose token was deleted is dropped). */
export function mentionsIn(text: string, mentions: readonly Mention[]): Mention[] {
  const present = new Set(
    tokenRanges(
      text,
      mentions.map((m) => m.label),
    ).map((r) => text.slice(r.start + 1, r.end)),
  );
  const seen = new Set<string>();
  return mentions.filter((m) => present.has(m.label) && !seen.has(m.label) && seen.add(m.label));
}
