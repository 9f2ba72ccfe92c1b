import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import type { Environment } from '#contract/environment';
import { headOf } from '#contract/output-limits';
import { localEnvironment } from '../environment/local/local-environment';
import { isSensitiveFile } from '../policies/sensitive';
import { isWithin } from '../policies/path-guard';

/** An instruction file as read: its text (cut at the cap), its resolved path and how big it was. */
export type ReadInstruction =
  | { ok: true; real: string; text: string; bytes: number; truncated: boolean }
  | { ok: false; reason: 'missing' | 'outside' | 'sensitive' | 'not-a-file' | 'unreadable'; real?: string };

export interface ReadInstructionOptions {
  /** Folders the file's real path (every symlink resolved) must lie in. */
  roots: readonly string[];
  /** At most this many characters are kept. */
  maxChars: number;
  deftHome?: string;
  workspace?: string;
  /** The machine the file is on (default: this one); a remote workspace's files are read there. */
  environment?: Environment;
}

/**
 * Read one instruction file under the path policy: every symlink resolved, the result inside one of `roots`,
 * never a secret file, only a regular file (a FIFO would hang), and never more than the cap's worth of bytes
 * (a 50 MB AGENTS.md costs one small read).
 */
export async function readInstructionFile(path: string, options: ReadInstructionOptions): Promise<ReadInstruction> {
  const environment = options.environment ?? localEnvironment();
  const there = environment.kind !== 'local';
  let real: string;
  try {
    real = there ? await environment.realpath(path) : await realpath(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : 'unreadable' };
  }
  const realRoots = await Promise.all(options.roots.map((root) => (there ? environment.realpath(root) : realpath(root)).catch(() => root)));
  if (!realRoots.some((root) => isWithin(real, root))) return { ok: false, reason: 'outside', real };
  const secretOptions = { ...(options.deftHome ? { deftHome: options.deftHome } : {}), ...(options.workspace ? { workspace: options.workspace } : {}) };
  if (await isSensitiveFile(environment, real, secretOptions).catch(() => true)) return { ok: false, reason: 'sensitive', real };
  if (there) return readThere(environment, real, options.maxChars);
  let handle;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; the stat below then refuses it.
    handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK).then(undefined, () => null);
    if (!handle) return { ok: false, reason: 'unreadable', real };
    const info = await handle.stat();
    if (!info.isFile()) return { ok: false, reason: 'not-a-file', real };
    // Enough bytes for maxChars characters of any width, plus one to notice there is more.
    const buffer = Buffer.alloc(Math.min(info.size, options.maxChars * 4) + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const decoded = new TextDecoder().decode(buffer.subarray(0, bytesRead), { stream: true });
    const truncated = decoded.length > options.maxChars || info.size > options.maxChars * 4 || bytesRead > info.size;
    return { ok: true, real, text: decoded.length > options.maxChars ? headOf(decoded, options.maxChars) : decoded, bytes: info.size, truncated };
  } catch {
    return { ok: false, reason: 'unreadable', real };
  } finally {
    await handle?.close();
  }
}

/** The same read on another machine: a stat first (a FIFO is refused without being opened), then one bounded read. */
async function readThere(environment: Environment, real: string, maxChars: number): Promise<ReadInstruction> {
  try {
    const info = await environment.stat(real);
    if (!info.isFile()) return { ok: false, reason: 'not-a-file', real };
    const reader = await environment.openRead(real);
    try {
      const buffer = Buffer.alloc(Math.min(info.size, maxChars * 4) + 1);
      let bytesRead = 0;
      while (bytesRead < buffer.length) {
        const n = await reader.read(buffer.subarray(bytesRead), bytesRead, buffer.length - bytesRead);
        if (n === 0) break;
        bytesRead += n;
      }
      const decoded = new TextDecoder().decode(buffer.subarray(0, bytesRead), { stream: true });
      const truncated = decoded.length > maxChars || info.size > maxChars * 4 || bytesRead > info.size;
      return { ok: true, real, text: decoded.length > maxChars ? headOf(decoded, maxChars) : decoded, bytes: info.size, truncated };
    } finally {
      await reader.close();
    }
  } catch {
    return { ok: false, reason: 'unreadable', real };
  }
}
