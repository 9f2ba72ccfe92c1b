import { type KeyboardEvent, useRef } from 'react';
import type { Mention } from '#protocol';
import { type TranscriptItem, useTranscript } from '../../stores/transcript';

/** A prompt to put back in the box: its text and the files it mentioned. */
export interface RecalledPrompt {
  text: string;
  mentions: readonly Mention[];
}

/** The session's prompts, oldest first (one recalled twice in a row once). */
function promptsOf(items: readonly TranscriptItem[]): RecalledPrompt[] {
  const list: RecalledPrompt[] = [];
  for (const item of items)
    if (item.kind === 'user' && item.text.trim() && list.at(-1)?.text !== item.text) list.push({ text: item.text, mentions: item.mentions });
  return list;
}

/**
 * ↑ and ↓ in the message box go through this session's earlier prompts, newest first, like a shell:
 * ↑ works when the box is empty or the caret is at its very start (or while going through them), ↓ at
 * its very end. Going past the newest brings back what was being typed.
 */
export function usePromptHistory(text: string, recall: (prompt: RecalledPrompt) => void) {
  const state = useRef<{ index: number; draft: string } | null>(null);

  return {
    onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>): boolean {
      // Read at the key, not subscribed to: the transcript changes every frame an answer streams, and the
      // message box would render again with it.
      const prompts = promptsOf(useTranscript.getState().items);
      // Typing (anything but a recalled prompt) ends the walk through history.
      if (state.current && text !== prompts[state.current.index]?.text) state.current = null;
      if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || !prompts.length) return false;
      const box = e.currentTarget;
      const collapsed = box.selectionStart === box.selectionEnd;
      if (e.key === 'ArrowUp' && collapsed && (text === '' || box.selectionStart === 0 || state.current)) {
        if (state.current && box.selectionStart !== 0 && box.value.slice(0, box.selectionStart).includes('\n')) return false;
        const next = state.current ? state.current.index - 1 : prompts.length - 1;
        if (next < 0) return true;
        e.preventDefault();
        state.current = { index: next, draft: state.current?.draft ?? text };
        recall(prompts[next]!);
        return true;
      }
      if (e.key === 'ArrowDown' && collapsed && state.current && box.selectionEnd === box.value.length) {
        e.preventDefault();
        const next = state.current.index + 1;
        if (next >= prompts.length) {
          const draft = state.current.draft;
          state.current = null;
          recall({ text: draft, mentions: [] });
        } else {
          state.current = { ...state.current, index: next };
          recall(prompts[next]!);
        }
        return true;
      }
      return false;
    },
  };
}
