import { splitZ } from './git';

/**
 * The paths `git status --porcelain=v2 -z` reports as different from the store's index or from HEAD:
 * changed, deleted or type-changed tracked files, and untracked ones (a nested repository shows as
 * its folder, with a trailing slash). Ignored files are not reported. With `filesOnly`, tracked files
 * whose file matches the index (only the index differs from HEAD) are left out: after a seeding the
 * whole index differs from a HEAD that does not exist yet, and the index already holds those files.
 */
export function statusPaths(output: Buffer, { filesOnly = false }: { filesOnly?: boolean } = {}): string[] {
  const records = splitZ(output);
  const paths: string[] = [];
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    const kind = record[0];
    if (kind === '?') paths.push(record.slice(2));
    // "1 XY sub mH mI mW hH hI path": eight fields, then the path (which may hold spaces).
    else if (kind === '1') {
      if (!filesOnly || record[3] !== '.') paths.push(fieldsThenRest(record, 8));
    }
    // "2 XY sub mH mI mW hH hI Xscore path\0origPath": renames are off, but read them right anyway.
    else if (kind === '2') {
      const original = records[++i];
      if (filesOnly && record[3] === '.') continue;
      paths.push(fieldsThenRest(record, 9));
      if (original !== undefined) paths.push(original);
    } else if (kind === 'u') paths.push(fieldsThenRest(record, 10));
  }
  return paths;
}

/** Whether `git status --porcelain=v2 -z` reports an entry of the index that differs from HEAD (or a conflict). */
export function indexDiffersFromHead(output: Buffer): boolean {
  const records = splitZ(output);
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (record[0] === 'u' || ((record[0] === '1' || record[0] === '2') && record[2] !== '.')) return true;
    if (record[0] === '2') i++;
  }
  return false;
}

function fieldsThenRest(record: string, fields: number): string {
  let at = 0;
  for (let i = 0; i < fields; i++) at = record.indexOf(' ', at) + 1;
  return record.slice(at);
}

/** One entry of `git diff-tree --raw -z`, with its line counts when `--numstat` was asked too. */
export interface TreeChange {
  path: string;
  status: 'A' | 'D' | 'M' | 'T';
  oldMode: string;
  newMode: string;
  oldBlob: string;
  newBlob: string;
  /** Lines added and removed; null for a binary file (or when not counted). */
  added: number | null;
  removed: number | null;
}

const ZERO = /^0+$/;

export function parseDiffTree(output: Buffer): TreeChange[] {
  const records = splitZ(output);
  const changes: TreeChange[] = [];
  const byPath = new Map<string, TreeChange>();
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (record.startsWith(':')) {
      const [oldMode = '', newMode = '', oldBlob = '', newBlob = '', status = 'M'] = record.slice(1).split(' ');
      const path = records[++i] ?? '';
      const change: TreeChange = {
        path,
        status: (['A', 'D', 'M', 'T'].includes(status[0]!) ? status[0] : 'M') as TreeChange['status'],
        oldMode,
        newMode,
        oldBlob: ZERO.test(oldBlob) ? '' : oldBlob,
        newBlob: ZERO.test(newBlob) ? '' : newBlob,
        added: null,
        removed: null,
      };
      changes.push(change);
      byPath.set(path, change);
    } else {
      // numstat: "added\tremoved\tpath" ("-\t-\tpath" for a binary file).
      const [added = '-', removed = '-', ...rest] = record.split('\t');
      const change = byPath.get(rest.join('\t'));
      if (change && added !== '-') {
        change.added = Number(added);
        change.removed = Number(removed);
      }
    }
  }
  return changes;
}
