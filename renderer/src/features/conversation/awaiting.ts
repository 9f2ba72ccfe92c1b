import type { TranscriptItem } from '../../stores/transcript';
import { indexFromEnd, promptRowId } from '../../stores/rows';

/**
 * Whether the running turn is still waiting for the model's first tokens: its prompt is there and
 * nothing of the answer (no text, reasoning or tool call) has come after it yet.
 */
export function awaitingFirstTokens(items: readonly TranscriptItem[], runningTurn: string | null): boolean {
  if (!runningTurn) return false;
  const prompt = indexFromEnd(items, promptRowId(runningTurn));
  if (prompt < 0) return false;
  for (let i = prompt + 1; i < items.length; i++) {
    const row = items[i]!;
    if (row.turnId === runningTurn && (row.kind === 'assistant' || row.kind === 'tool')) return false;
  }
  return true;
}
