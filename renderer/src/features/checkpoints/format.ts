import type { RewindFile, SkippedFileInfo } from '#protocol';
import { formatBytes } from '#protocol/helpers/units';

export const ACTION_LABEL: Record<RewindFile['action'], string> = { restore: 'Restore', remove: 'Remove', bring_back: 'Bring back' };

/** Why a file is not restored, in words. */
export function skippedReason(file: SkippedFileInfo): string {
  switch (file.reason) {
    case 'secret':
      return 'it holds secrets, which checkpoints never store';
    case 'too_large':
      return `over the size limit${file.size !== undefined ? ` (${formatBytes(file.size)})` : ''}`;
    case 'unreadable':
      return 'could not be read';
    case 'nested_repository':
      return 'a repository of its own inside the workspace';
    case 'special':
      return 'not a regular file';
  }
}

/** "2 restored, 1 removed" from a list of file actions. */
export function countActions(files: readonly Pick<RewindFile, 'action'>[]): string {
  const count = (action: RewindFile['action']) => files.filter((f) => f.action === action).length;
  const parts = [
    count('restore') ? `${count('restore')} restored` : '',
    count('remove') ? `${count('remove')} removed` : '',
    count('bring_back') ? `${count('bring_back')} brought back` : '',
  ].filter(Boolean);
  return parts.join(', ') || 'no files change';
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
