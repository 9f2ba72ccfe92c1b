import { useRef } from 'react';
import { rowById } from '../../stores/rows';
import { type AssistantItem, type Transcript, type TranscriptItem, useTranscript } from '../../stores/transcript';

/** What a streamed delta changes in an answer's row: its text and reasoning, and when the reasoning ran. */
const STREAMED = new Set<string>(['text', 'thinking', 'thinkingFrom', 'thinkingUntil']);

/** Whether `next` is `prev` (the same streaming answer) with only its streamed text changed. */
export function onlyTextGrew(prev: TranscriptItem, next: TranscriptItem): boolean {
  if (prev.kind !== 'assistant' || next.kind !== 'assistant' || prev.id !== next.id || !prev.streaming || !next.streaming) return false;
  const before = prev as unknown as Record<string, unknown>;
  const after = next as unknown as Record<string, unknown>;
  const keys = Object.keys(after);
  if (keys.length !== Object.keys(before).length) return false;
  return keys.every((key) => STREAMED.has(key) || before[key] === after[key]);
}

/**
 * `previous` when `next` holds the same rows but for answers whose streamed text grew (nothing the list
 * itself shows of a row changed), else `next`. A few hundred identity checks at most: the rows, not the text.
 */
export function sameRowsUnlessChanged(previous: TranscriptItem[] | null, next: TranscriptItem[]): TranscriptItem[] {
  if (!previous || previous === next || previous.length !== next.length) return next;
  for (let i = 0; i < next.length; i++) if (previous[i] !== next[i] && !onlyTextGrew(previous[i]!, next[i]!)) return next;
  return previous;
}

/**
 * The open session's rows for the conversation list: the same array while only a streaming answer's text
 * grows. A streamed delta then renders the answer itself (useLiveAnswer), not the list, its virtualizer and
 * every row shown.
 */
export function useShownRows(): TranscriptItem[] {
  const shown = useRef<TranscriptItem[] | null>(null);
  return useTranscript((s: Transcript) => (shown.current = sameRowsUnlessChanged(shown.current, s.items)));
}

/**
 * An answer's row as it is now in the open session (its text as streamed so far): the list hands its row
 * down once, and the answer follows its text from here. Rows of elsewhere (a sub-agent's card) are as given.
 */
export function useLiveAnswer(item: AssistantItem, live: boolean): AssistantItem {
  return useTranscript((s) => {
    if (!live) return item;
    const row = rowById(s.items, item.id);
    return row?.kind === 'assistant' ? row : item;
  });
}
