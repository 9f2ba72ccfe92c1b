import { isAbsolute, resolve } from 'node:path';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { SessionEventOf, ToolResultDisplay } from '#protocol';

type DiffHunk = NonNullable<Extract<ToolResultDisplay, { kind: 'diff' }>['hunks']>[number];

// A finished Write/Edit as a whole-file diff. Deft's events keep hunks (3 lines of context), not whole files; ACP's diff
// content wants the file's old and new text. After the call, the file's text (read through the core's path policy) is
// the new side, and the old side is that text with the hunks taken back. The hunks must fit the text exactly — every
// context and added line where the hunk says — else the file changed since (or the hunks were cut) and the hunks stay.

/** Files larger than this keep their hunks. */
export const WHOLE_FILE_MAX = 256 * 1024;

interface Side {
  lines: string[];
  /** Whether the last line lacks a line break. */
  noEol: boolean;
}

/** The old and new text of a change whose new text is `after`, or null when the hunks do not fit it. */
export function wholeFileTexts(hunks: readonly DiffHunk[], after: string): { oldText: string; newText: string } | null {
  if (!hunks.length || after.length > WHOLE_FILE_MAX) return null;
  const afterLines = after === '' ? [] : after.split('\n');
  const afterNoEol = afterLines.length > 0 && afterLines[afterLines.length - 1] !== '';
  if (!afterNoEol) afterLines.pop();
  const old: Side = { lines: [], noEol: false };
  const rebuilt: Side = { lines: [], noEol: false };
  /** Lines no hunk changed: on both sides. */
  const keep = (lines: readonly string[]) => {
    for (const line of lines) {
      old.lines.push(line);
      rebuilt.lines.push(line);
    }
  };
  let at = 0;
  for (const hunk of hunks) {
    const start = hunk.newLines === 0 ? hunk.newStart : hunk.newStart - 1;
    if (start < at || start > afterLines.length) return null;
    keep(afterLines.slice(at, start));
    at = start;
    let last = ' ';
    for (const line of hunk.lines) {
      const sign = line[0];
      const text = line.slice(1);
      if (sign === '\\') {
        if (last !== '+') old.noEol = true;
        if (last !== '-') rebuilt.noEol = true;
        continue;
      }
      if (sign === ' ' || sign === '+') {
        if (afterLines[at] !== text) return null;
        rebuilt.lines.push(text);
        at++;
      }
      if (sign === ' ' || sign === '-') old.lines.push(text);
      if (sign !== ' ' && sign !== '+' && sign !== '-') return null;
      last = sign;
    }
  }
  if (at < afterLines.length) {
    keep(afterLines.slice(at));
    old.noEol = rebuilt.noEol = afterNoEol;
  }
  const text = (side: Side) => (side.lines.length ? side.lines.join('\n') + (side.noEol ? '' : '\n') : '');
  const newText = text(rebuilt);
  if (newText !== after) return null;
  return { oldText: text(old), newText };
}

type ReadFile = (path: string) => Promise<{ content: string; truncated: boolean; size: number } | null>;
type DiffDisplay = Extract<ToolResultDisplay, { kind: 'diff' }>;

/** The diff of a finished Write/Edit whose hunks are whole (not cut), or null. */
function wholeDiff(event: SessionEventOf<'tool.call.result'>): (DiffDisplay & { hunks: DiffHunk[] }) | null {
  const display = event.display;
  if (event.isError || display?.kind !== 'diff' || display.truncated || display.omitted || !display.hunks?.length) return null;
  return display as DiffDisplay & { hunks: DiffHunk[] };
}

/** The file's text now, through the core (its path policy); null when it cannot be read whole. */
async function textNow(read: ReadFile, path: string): Promise<string | null> {
  const file = await read(path).catch(() => null);
  return !file || file.truncated || file.size > WHOLE_FILE_MAX ? null : file.content;
}

function diffUpdate(callId: string, path: string, cwd: string, texts: { oldText: string; newText: string }): SessionUpdate {
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId: callId,
    content: [
      { type: 'diff', path: isAbsolute(path) ? path : resolve(cwd, path), oldText: texts.oldText === '' ? null : texts.oldText, newText: texts.newText },
    ],
  };
}

/**
 * For a finished Write/Edit whose diff is whole (not cut), the update that replaces its hunks with the whole file; null
 * otherwise. `read` reads a workspace file through the core (its path policy), null when it cannot.
 */
export async function wholeFileUpdate(event: SessionEventOf<'tool.call.result'>, cwd: string, read: ReadFile): Promise<SessionUpdate | null> {
  const display = wholeDiff(event);
  const after = display && (await textNow(read, display.path));
  const texts = display && after !== null ? wholeFileTexts(display.hunks, after) : null;
  return texts ? diffUpdate(event.callId, display!.path, cwd, texts) : null;
}

/** At most this many Write/Edit calls of a replay get whole files (the newest); older ones keep their hunks. */
export const REPLAY_WHOLE_MAX = 500;

/**
 * Whole-file updates for the Write/Edit calls of a replayed transcript (session/load), by call id. Each file is read
 * once: its text now is the newest change's new side, and that change's old side the new side of the change before
 * it, and so on back — as long as the hunks fit, so a file something else changed in between keeps its hunks from
 * there back.
 */
export async function replayWholeFiles(events: readonly { type: string }[], cwd: string, read: ReadFile): Promise<Map<string, SessionUpdate>> {
  const byPath = new Map<string, Array<{ callId: string; hunks: DiffHunk[]; path: string }>>();
  const results = events.filter((e): e is SessionEventOf<'tool.call.result'> => e.type === 'tool.call.result');
  let taken = 0;
  for (let i = results.length - 1; i >= 0 && taken < REPLAY_WHOLE_MAX; i--) {
    const display = wholeDiff(results[i]!);
    if (!display) continue;
    const key = isAbsolute(display.path) ? display.path : resolve(cwd, display.path);
    byPath.set(key, [...(byPath.get(key) ?? []), { callId: results[i]!.callId, hunks: display.hunks, path: display.path }]);
    taken++;
  }
  const updates = new Map<string, SessionUpdate>();
  for (const changes of byPath.values()) {
    let after = await textNow(read, changes[0]!.path);
    for (const change of changes) {
      const texts = after === null ? null : wholeFileTexts(change.hunks, after);
      if (!texts) break;
      updates.set(change.callId, diffUpdate(change.callId, change.path, cwd, texts));
      after = texts.oldText;
    }
  }
  return updates;
}
