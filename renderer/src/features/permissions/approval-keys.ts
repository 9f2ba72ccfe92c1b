import type { KeyboardEvent } from 'react';

/** A single-key answer: the key (as KeyboardEvent.key) and what it does. */
export interface KeyAnswer {
  key: string;
  run: () => void;
}

/**
 * Single-key answers while the focus is in an approval (not in its feedback box): `y` approve once,
 * `a` approve for the session, `A` always allow, `n` reject; a plan review adds `r` to revise, a goal
 * start `w` to run the goal without asking. Returns
 * the handler for the approval's onKeyDown.
 */
export function answerKeys(answers: readonly KeyAnswer[], busy: boolean) {
  return (e: KeyboardEvent<HTMLElement>) => {
    if (busy || e.ctrlKey || e.metaKey || e.altKey || e.nativeEvent.isComposing) return;
    const target = e.target as HTMLElement;
    // Where a letter is text (the feedback box, a field), it stays text; on a button or an option it answers.
    const typing =
      target.closest('textarea, select, [contenteditable="true"]') ||
      (target instanceof HTMLInputElement && !['radio', 'checkbox', 'button'].includes(target.type));
    if (typing) return;
    const answer = answers.find((a) => a.key === e.key);
    if (!answer) return;
    e.preventDefault();
    answer.run();
  };
}

/** How a key is shown on its button: `A` (shift) as ⇧A, letters in capitals. */
export function keyLabel(key: string): string {
  return key !== key.toLowerCase() ? `⇧${key}` : key.toUpperCase();
}
