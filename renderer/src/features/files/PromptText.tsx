import type { Mention } from '#protocol';
import { tokenRanges } from '../composer/mentions';
import { FilePath } from './FilePath';

/** A sent prompt, its @-mentions shown as chips that open the file. */
export function PromptText({ text, mentions }: { text: string; mentions: readonly Mention[] }) {
  if (!mentions.length) return <>{text}</>;
  const byLabel = new Map(mentions.map((m) => [m.label, m.path]));
  const parts = [];
  let at = 0;
  for (const r of tokenRanges(text, [...byLabel.keys()])) {
    const label = text.slice(r.start + 1, r.end);
    parts.push(text.slice(at, r.start), <FilePath key={r.start} path={byLabel.get(label)!} label={`@${label}`} className="mention-chip" />);
    at = r.end;
  }
  parts.push(text.slice(at));
  return <>{parts}</>;
}
