import { TREE_MODE, type TreeEntry, formatTree, parseTree } from './objects';

/** What one workspace path becomes in a tree: an entry (a file or a link), or nothing. */
export interface PathChange {
  path: string;
  entry: { mode: string; id: string } | null;
  /** Remove only a file or link there, never a folder's tree (a nested repository's folder, say). */
  keepFolder?: boolean;
}

interface Node {
  change?: PathChange;
  children: Map<string, Node>;
}

/**
 * The id of `base` (a tree id, or null for none) with these paths changed: only the trees along the changed
 * paths are read and written again; every other subtree keeps its id. A folder left empty disappears, as
 * git never stores an empty tree below the root. A path that is both a folder's and a file's (a file
 * replaced by a folder) becomes the folder when anything is under it.
 */
export async function patchTree(
  base: string | null,
  changes: readonly PathChange[],
  read: (id: string) => Promise<Buffer>,
  write: (body: Buffer) => Promise<string>,
): Promise<string> {
  const root: Node = { children: new Map() };
  for (const change of changes) {
    let node = root;
    for (const part of change.path.split('/')) {
      const key = Buffer.from(part, 'utf8').toString('latin1');
      let child = node.children.get(key);
      if (!child) node.children.set(key, (child = { children: new Map() }));
      node = child;
    }
    node.change = change;
  }
  return (await apply(base, root, read, write)).id;
}

async function apply(
  base: string | null,
  node: Node,
  read: (id: string) => Promise<Buffer>,
  write: (body: Buffer) => Promise<string>,
): Promise<{ id: string; empty: boolean }> {
  const entries = new Map<string, TreeEntry>();
  if (base) for (const entry of parseTree(await read(base))) entries.set(entry.name.toString('latin1'), entry);
  for (const [key, child] of node.children) {
    const name = Buffer.from(key, 'latin1');
    const existing = entries.get(key);
    if (child.children.size) {
      const sub = await apply(existing?.mode === TREE_MODE ? existing.id : null, child, read, write);
      if (!sub.empty) {
        entries.set(key, { mode: TREE_MODE, name, id: sub.id });
        continue;
      }
      if (existing?.mode === TREE_MODE) entries.delete(key);
    }
    const change = child.change;
    if (!change) continue;
    if (change.entry) entries.set(key, { mode: change.entry.mode, name, id: change.entry.id });
    else if (existing && !(change.keepFolder && existing.mode === TREE_MODE)) entries.delete(key);
  }
  return { id: await write(formatTree([...entries.values()])), empty: entries.size === 0 };
}
