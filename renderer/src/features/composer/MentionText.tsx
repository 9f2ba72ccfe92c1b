import { type RefObject, useLayoutEffect, useRef } from 'react';
import { tokenRanges } from './mentions';

/**
 * Drawn behind the message box with the same text, font and wrapping: each @-mention's token gets a
 * chip's background, so the paths read as chips while the box stays a plain text field.
 */
export function MentionText({ text, labels, textarea }: { text: string; labels: readonly string[]; textarea: RefObject<HTMLTextAreaElement | null> }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const box = textarea.current;
    const layer = ref.current;
    if (!box || !layer) return;
    const sync = () => {
      layer.scrollTop = box.scrollTop;
    };
    sync();
    box.addEventListener('scroll', sync);
    return () => box.removeEventListener('scroll', sync);
  });
  if (!labels.length) return null;
  const ranges = tokenRanges(text, labels);
  const parts = [];
  let at = 0;
  for (const r of ranges) {
    parts.push(
      text.slice(at, r.start),
      <mark key={r.start} className="mention-chip">
        {text.slice(r.start, r.end)}
      </mark>,
    );
    at = r.end;
  }
  parts.push(text.slice(at), '\u200b');
  return (
    <div className="mention-layer" ref={ref} aria-hidden="true">
      {parts}
    </div>
  );
}
