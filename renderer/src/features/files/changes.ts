import type { ToolResultDisplay } from '../../../../protocol';
import { countChanges, hunksOf } from './diff-model';

/** One file changed in a turn, with its net line counts and the calls that changed it. */
export interface ChangedFile {
  path: string;
  added: number;
  removed: number;
  callIds: string[];
}

/** The transcript item listing a turn's changed files (shown after the turn ends). */
export interface ChangesItem {
  kind: 'changes';
  id: string;
  turnId: string;
  files: ChangedFile[];
}

interface ToolLike {
  kind: string;
  id: string;
  turnId?: string;
  result?: { isError: boolean; display?: ToolResultDisplay };
}

/** Every file a turn's tool calls changed (results with a diff), in the order first changed. */
export function changedFiles(items: readonly ToolLike[], turnId: string): ChangedFile[] {
  const byPath = new Map<string, ChangedFile>();
  for (const item of items) {
    const display = item.kind === 'tool' && item.turnId === turnId && !item.result?.isError ? item.result?.display : undefined;
    if (display?.kind !== 'diff') continue;
    const counts = display.added !== undefined && display.removed !== undefined ? { added: display.added, removed: display.removed } : countChanges(hunksOf(display));
    const entry = byPath.get(display.path) ?? { path: display.path, added: 0, removed: 0, callIds: [] };
    entry.added += counts.added;
    entry.removed += counts.removed;
    entry.callIds.push(item.id);
    byPath.set(display.path, entry);
  }
  return [...byPath.values()];
}
