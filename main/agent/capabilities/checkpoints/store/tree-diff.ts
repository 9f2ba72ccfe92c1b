import { lineEditCounts } from '#infra/text/line-counts';
import { TREE_MODE, type TreeEntry, parseTree } from './objects';
import type { TreeChange } from './status';

/**
 * What differs between two trees, as `git diff-tree -r --raw --numstat` says it, worked out here for the small case (a
 * turn's few changed files) so that a turn's end starts no git: only subtrees whose ids differ are read, and the line
 * counts come from a diff of the blobs (a minimal one: the counts are then those of git's, whose heuristics start only
 * far beyond the edit sizes taken here). Null — ask git — beyond MAX_FILES changed files, a blob over MAX_BLOB_BYTES,
 * an edit of MAX_EDIT lines or more, a submodule, or any object not read here. With `counts` a number N (a turn's
 * *Changed files*, which lists the first N), only the first N changes are counted (the others' counts stay null), and
 * up to MAX_LISTED files changed and COUNTED_BYTES of blobs read are worked out here: a command that changed 500 files
 * starts no git to list them.
 */

const MAX_FILES = 20;
const MAX_LISTED = 5_000;
const COUNTED_BYTES = 16 * 1024 * 1024;
const MAX_BLOB_BYTES = 128 * 1024;
const MAX_EDIT = 200;
/** git's own test for a binary file: a NUL among the first 8,000 bytes. */
const BINARY_PROBE = 8000;
const ZERO_MODE = '000000';

type Read = (id: string) => Promise<Buffer | null>;

class AskGit extends Error {}

/** Sort key of a tree entry as git orders them: a folder's name as if it ended in "/". */
function key(entry: TreeEntry): Buffer {
  return entry.mode === TREE_MODE ? Buffer.concat([entry.name, Buffer.from('/')]) : entry.name;
}

export async function diffTreesHere(from: string, to: string, readTree: Read, readBlob: Read, counts: boolean | number): Promise<TreeChange[] | null> {
  const changes: TreeChange[] = [];
  const limit = typeof counts === 'number' ? MAX_LISTED : MAX_FILES;
  const counted = counts === true ? Number.POSITIVE_INFINITY : counts === false ? 0 : counts;
  let bytes = 0;
  const tree = async (id: string) => {
    const body = await readTree(id);
    if (!body) throw new AskGit();
    return parseTree(body);
  };
  const add = (path: string, status: TreeChange['status'], a: TreeEntry | null, b: TreeEntry | null) => {
    if ((a && a.mode === '160000') || (b && b.mode === '160000')) throw new AskGit();
    changes.push({
      path,
      status,
      oldMode: a?.mode ?? ZERO_MODE,
      newMode: b?.mode ?? ZERO_MODE,
      oldBlob: a?.id ?? '',
      newBlob: b?.id ?? '',
      added: null,
      removed: null,
    });
    if (changes.length > limit) throw new AskGit();
  };
  const all = async (prefix: string, id: string, side: 'A' | 'D') => {
    for (const entry of await tree(id)) {
      const path = prefix + entry.name.toString('utf8');
      if (entry.mode === TREE_MODE) await all(`${path}/`, entry.id, side);
      else add(path, side, side === 'D' ? entry : null, side === 'A' ? entry : null);
    }
  };
  const walk = async (prefix: string, a: string, b: string) => {
    const [left, right] = await Promise.all([tree(a), tree(b)]);
    let i = 0;
    let j = 0;
    while (i < left.length || j < right.length) {
      const x = left[i];
      const y = right[j];
      const order = !x ? 1 : !y ? -1 : key(x).compare(key(y));
      if (order < 0) {
        const path = prefix + x!.name.toString('utf8');
        if (x!.mode === TREE_MODE) await all(`${path}/`, x!.id, 'D');
        else add(path, 'D', x!, null);
        i++;
      } else if (order > 0) {
        const path = prefix + y!.name.toString('utf8');
        if (y!.mode === TREE_MODE) await all(`${path}/`, y!.id, 'A');
        else add(path, 'A', null, y!);
        j++;
      } else {
        const path = prefix + x!.name.toString('utf8');
        if (x!.id !== y!.id || x!.mode !== y!.mode) {
          if (x!.mode === TREE_MODE) await walk(`${path}/`, x!.id, y!.id);
          else add(path, (x!.mode === '120000') !== (y!.mode === '120000') ? 'T' : 'M', x!, y!);
        }
        i++;
        j++;
      }
    }
  };
  try {
    await walk('', from, to);
    for (const change of changes.slice(0, counted)) {
      const [a, b] = await Promise.all([
        change.oldBlob ? readBlob(change.oldBlob) : Buffer.alloc(0),
        change.newBlob ? readBlob(change.newBlob) : Buffer.alloc(0),
      ]);
      if (!a || !b || a.length > MAX_BLOB_BYTES || b.length > MAX_BLOB_BYTES) throw new AskGit();
      bytes += a.length + b.length;
      if (bytes > COUNTED_BYTES) throw new AskGit();
      if (a.subarray(0, BINARY_PROBE).includes(0) || b.subarray(0, BINARY_PROBE).includes(0)) continue;
      const counts = lineEditCounts(a.toString('latin1'), b.toString('latin1'), MAX_EDIT);
      if (!counts) throw new AskGit();
      const [added, removed] = counts;
      change.added = added;
      change.removed = removed;
    }
    return changes;
  } catch (error) {
    if (error instanceof AskGit) return null;
    throw error;
  }
}
