import type { Attachment } from '#protocol';
import { DeftError } from '#protocol/helpers/bridge';
import { deft } from '../bridge';
import { useHistory } from '../stores/history';
import { useSessions } from '../stores/sessions';
import { useTranscript } from '../stores/transcript';
import { report } from './attempt';
import { sendPrompt } from './sessions';

/** The latest turn the model still reads (not undone), by its prompt. */
export function latestTurnId(): string | null {
  const { items } = useTranscript.getState();
  const undone = useHistory.getState().undone;
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind === 'user' && !undone[item.turnId]) return item.turnId;
  }
  return null;
}

/**
 * Send a turn's prompt again (Retry, Edit & resend). When it is the latest turn, that turn is undone
 * first, so the model reads the new attempt in its place rather than both; files it changed stay changed.
 */
export async function resendTurn(turnId: string, text: string, attachments: Attachment[]): Promise<boolean> {
  const sessionId = useSessions.getState().currentId;
  if (!sessionId || useTranscript.getState().runningTurn) return false;
  if (turnId === latestTurnId()) {
    try {
      await deft.undoTurns({ sessionId, count: 1 });
    } catch (error) {
      // Past a compaction a turn cannot be undone: the prompt is sent again all the same.
      if (DeftError.from(error).code !== 'invalid_request') {
        report(error);
        return false;
      }
    }
  }
  return sendPrompt(text, attachments);
}

/** Copy text to the clipboard; false where the page may not (the caller says so). */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
