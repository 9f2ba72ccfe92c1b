import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { deflate, inflate } from 'node:zlib';
import type { Environment } from '#contract/environment';
import { commitBody, objectId } from './objects';

// The remote store's objects and refs read and written over the Environment's file calls (SFTP) instead of by a
// git process there: as store.ts does with its own files (objects.ts), so a turn in which nothing changed — a
// text-only turn — starts no process on the other machine. The same formats and the same way of writing (a
// temporary file renamed into place, a `.lock` created exclusively and renamed over the ref), so the remote's git
// sees ordinary loose objects and refs. Anything these cannot do (a packed object, a sha-256 store, a ref that exists
// or is locked) is left to git there: each function says so by returning null or false.

const deflateAsync = promisify(deflate);
const inflateAsync = promisify(inflate);

/** HEAD, or refs/… of plain name parts (as objects.ts's writeRef checks). */
const REF_NAME = /^(?:HEAD|refs(?:\/[A-Za-z0-9_][A-Za-z0-9_.-]*)+)$/;
const SHA1 = /^[0-9a-f]{40}$/;

/** A loose object's body read over the Environment, or null when it is not loose (packed, or gone: ask git). Checked against its id. */
export async function readLooseObject(environment: Environment, gitDir: string, id: string, type: 'commit' | 'tree'): Promise<Buffer | null> {
  if (!SHA1.test(id)) return null;
  const stored = await environment.readBytes(environment.path.join(gitDir, 'objects', id.slice(0, 2), id.slice(2))).catch(() => null);
  if (!stored) return null;
  const data = await inflateAsync(stored);
  const nul = data.indexOf(0);
  const body = data.subarray(nul + 1);
  if (data.subarray(0, nul).toString('latin1') !== `${type} ${body.length}` || objectId(type, body) !== id)
    throw new Error(`The checkpoint store's object ${id} is damaged.`);
  return body;
}

/** What HEAD names: a commit id, 'none' (no HEAD commit yet), or null when git must say (anything else). */
export async function readHead(environment: Environment, gitDir: string): Promise<string | 'none' | null> {
  const text = await environment.readText(environment.path.join(gitDir, 'HEAD')).catch(() => null);
  if (text === null) return null;
  const head = text.trim();
  if (SHA1.test(head)) return head;
  // A fresh store: HEAD names a branch that was never made.
  if (head.startsWith('ref: refs/heads/')) {
    const branch = head.slice(5);
    const loose = await environment.lstat(environment.path.join(gitDir, branch)).catch(() => null);
    const packed = await environment.readText(environment.path.join(gitDir, 'packed-refs')).catch(() => '');
    if (!loose && !packed.includes(` ${branch}\n`)) return 'none';
  }
  return null;
}

/** A commit's tree, read over the Environment; null when it is not a loose commit. */
export async function commitTree(environment: Environment, gitDir: string, commit: string): Promise<string | null> {
  const body = await readLooseObject(environment, gitDir, commit, 'commit');
  return body ? (/^tree ([0-9a-f]{40})\n/.exec(body.toString('latin1'))?.[1] ?? null) : null;
}

/** Whether any ref lies under `prefix` (e.g. "refs/deft/<session>/"), loose or packed: a new session's store has none. */
export async function hasRefsUnder(environment: Environment, gitDir: string, prefix: string): Promise<boolean> {
  const folder = environment.path.join(gitDir, prefix.replace(/\/$/, ''));
  if (await environment.lstat(folder).catch(() => null)) return true;
  const packed = await environment.readText(environment.path.join(gitDir, 'packed-refs')).catch(() => '');
  return packed.includes(` ${prefix}`);
}

/** Write a loose object unless it is there (a temporary file, renamed into place); returns its id. */
async function writeObject(environment: Environment, gitDir: string, type: 'commit', body: Buffer): Promise<string> {
  const { join } = environment.path;
  const id = objectId(type, body);
  const dir = join(gitDir, 'objects', id.slice(0, 2));
  const path = join(dir, id.slice(2));
  if (await environment.lstat(path).catch(() => null)) return id;
  const data = await deflateAsync(Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]), { level: 1 });
  await environment.mkdir(dir, { recursive: true });
  const temp = join(dir, `tmp_obj_${randomBytes(6).toString('hex')}`);
  try {
    await environment.writeFile(temp, data, { flag: 'wx', mode: 0o444 });
    await environment.rename(temp, path);
  } catch (error) {
    await environment.rm(temp, { force: true }).catch(() => {});
    throw error;
  }
  return id;
}

/** Point `ref` at `id` as git does (an exclusive `<ref>.lock` renamed over it); with `create`, false (nothing written) when it exists or is locked. */
async function writeRef(environment: Environment, gitDir: string, ref: string, id: string, create: boolean): Promise<boolean> {
  if (!REF_NAME.test(ref) || ref.split('/').some((part) => part.includes('..') || part.endsWith('.lock'))) return false;
  const { join, dirname } = environment.path;
  const path = join(gitDir, ref);
  await environment.mkdir(dirname(path), { recursive: true });
  const lock = `${path}.lock`;
  const locked = await environment.writeFile(lock, `${id}\n`, { flag: 'wx', mode: 0o644 }).then(
    () => true,
    () => false,
  );
  if (!locked) return false;
  try {
    if (create && (await environment.lstat(path).catch(() => null))) {
      await environment.rm(lock, { force: true });
      return false;
    }
    await environment.rename(lock, path);
    return true;
  } catch (error) {
    await environment.rm(lock, { force: true }).catch(() => {});
    throw error;
  }
}

/**
 * A checkpoint's commit (parentless, of `tree`) written over the Environment, HEAD moved there and its ref `ref`
 * created (it must not exist; the caller knows no packed one does). The commit id, or null when git must do it
 * (a sha-256 tree, the ref there already or locked): nothing was pointed at the commit then.
 */
export async function writeCheckpoint(
  environment: Environment,
  gitDir: string,
  tree: string,
  message: string,
  at: number,
  ref: string,
): Promise<string | null> {
  if (!SHA1.test(tree)) return null;
  const commit = await writeObject(environment, gitDir, 'commit', Buffer.from(commitBody(tree, message, new Date(at))));
  // HEAD first: should the ref fail, git there makes the checkpoint again, and HEAD names its tree either way.
  if (!(await writeRef(environment, gitDir, 'HEAD', commit, false))) return null;
  return (await writeRef(environment, gitDir, ref, commit, true)) ? commit : null;
}

/** Write a small file of the store's unless it holds these bytes already. */
export async function writeIfChanged(environment: Environment, path: string, content: string): Promise<void> {
  if ((await environment.readText(path).catch(() => null)) === content) return;
  await environment.writeFile(path, content);
}

/**
 * Replace a file of the store's: a private temporary file beside it, renamed over it (SFTP's posix-rename), so a
 * reader sees the old file or the new. Not `Environment.replaceFile`, which refuses a folder that is not its real path
 * (the store's lies under the remote home as `$HOME` names it, which may go through a link).
 */
export async function replaceStoreFile(environment: Environment, path: string, data: string): Promise<void> {
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await environment.writeFile(temp, data, { flag: 'wx', mode: 0o600 });
    await environment.rename(temp, path);
  } catch (error) {
    await environment.rm(temp, { force: true }).catch(() => {});
    throw error;
  }
}
