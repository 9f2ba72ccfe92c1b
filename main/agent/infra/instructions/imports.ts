/**
 * The `@path` imports of an instruction file, as Claude Code reads them: `@` at the start of a line or after
 * white space, then a path (relative to the file, absolute, or from `~/`). Nothing inside a fenced code block or
 * a code span counts, so `npm i @scope/pkg` in backticks is left alone; a trailing full stop or comma is not part
 * of the path.
 */
export function findImports(text: string): string[] {
  const found: string[] = [];
  let fence: string | null = null;
  for (const line of text.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker) {
      if (fence === null) fence = marker[0]!;
      else if (marker[0] === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const outsideSpans = line.replace(/(`+)[\s\S]*?\1/g, ' ');
    for (const match of outsideSpans.matchAll(/(?:^|\s)@((?:~\/|\.{1,2}\/|\/)?[\w.~/-][^\s`]*)/g)) {
      const path = match[1]!.replace(/[.,;:!?)\]]+$/, '');
      if (path && !found.includes(path)) found.push(path);
    }
  }
  return found;
}

/** The text with every line that holds nothing but imports of `skipped` files taken out (a `CLAUDE.md` that only says `@AGENTS.md`). */
export function withoutBareImports(text: string, skipped: ReadonlySet<string>): string {
  return text
    .split('\n')
    .filter((line) => {
      const words = line.trim().split(/\s+/).filter(Boolean);
      return !(words.length > 0 && words.every((w) => w.startsWith('@') && skipped.has(w.slice(1).replace(/[.,;:!?)\]]+$/, ''))));
    })
    .join('\n');
}
