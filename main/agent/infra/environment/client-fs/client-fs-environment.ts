import type { Environment, FileInfo, RandomReader } from '#contract/environment';

/**
 * An editor's view of the workspace's text files (an ACP client's `fs/read_text_file` and `fs/write_text_file`): what
 * the editor holds, unsaved changes included. `null` when the editor cannot be asked now.
 */
export interface ClientFiles {
  readText?: (path: string) => Promise<string>;
  writeText?: (path: string, text: string) => Promise<void>;
}

/** How long a text the client gave is used again (a Read's stat, open and read of one file ask once). */
const REUSE_MS = 1_000;
/** Files larger than this (on disk) are read from disk: an editor's buffer is not the way to move them. */
const MAX_CLIENT_BYTES = 10 * 1024 * 1024;
const SNIFF_BYTES = 8_192;

/**
 * `inner` with the workspace's text files read (and replaced) through the client: everything else — paths, links,
 * folders, processes, search, files outside the workspace, binary files — stays `inner`'s. Paths reach here already
 * resolved by the path guard (real and checked), so the client is only ever asked about files inside the workspace.
 * When the client fails, the file is read from disk.
 */
export function clientFilesEnvironment(inner: Environment, workspace: string, client: () => ClientFiles | null): Environment {
  const recent = new Map<string, { text: string; at: number }>();
  const inside = (path: string) => path.startsWith(workspace.endsWith(inner.path.sep) ? workspace : workspace + inner.path.sep);

  /** The client's text of a file, or null when it is not one the client should be asked about. */
  const clientText = async (path: string): Promise<string | null> => {
    const read = client()?.readText;
    if (!read || !inside(path)) return null;
    const cached = recent.get(path);
    if (cached && Date.now() - cached.at < REUSE_MS) return cached.text;
    const info = await inner.lstat(path).catch(() => null);
    if (!info?.isFile() || info.size > MAX_CLIENT_BYTES || (await looksBinary(inner, path, info.size))) return null;
    try {
      const text = await read(path);
      recent.set(path, { text, at: Date.now() });
      return text;
    } catch {
      return null;
    }
  };

  const withSize = (info: FileInfo, size: number): FileInfo => {
    const { mode, mtimeMs, ino, dev, nlink } = info;
    return { size, mode, mtimeMs, ino, dev, nlink, isFile: () => true, isDirectory: () => false, isSymbolicLink: () => false };
  };

  const environment: Environment = {
    kind: inner.kind,
    label: inner.label,
    path: inner.path,
    home: inner.home,
    cwd: () => inner.cwd(),
    shell: () => inner.shell(),
    async stat(path: string) {
      const info = await inner.stat(path);
      if (!info.isFile()) return info;
      const text = await clientText(path);
      return text === null ? info : withSize(info, Buffer.byteLength(text));
    },
    async readBytes(path: string) {
      const text = await clientText(path);
      return text === null ? inner.readBytes(path) : Buffer.from(text, 'utf8');
    },
    async readText(path: string) {
      return (await clientText(path)) ?? inner.readText(path);
    },
    async openRead(path: string): Promise<RandomReader> {
      const text = await clientText(path);
      return text === null ? inner.openRead(path) : memoryReader(Buffer.from(text, 'utf8'));
    },
    async *readLines(path: string, signal?: AbortSignal) {
      const text = await clientText(path);
      if (text === null) {
        yield* inner.readLines(path, signal);
        return;
      }
      const lines = text.split('\n');
      if (lines.at(-1) === '') lines.pop();
      yield* lines;
    },
    async replaceFile(path: string, data: string | Uint8Array) {
      recent.delete(path);
      const write = client()?.writeText;
      const text = typeof data === 'string' ? data : decodeUtf8(data);
      if (!write || !inside(path) || text === null) await inner.replaceFile(path, data);
      else await write(path, text);
      // As the stat here tells it (the client's text, when it holds the file).
      return environment.stat(path).catch(() => null);
    },
    // Bound to `inner`: the rest is inner's own, called on it.
    lstat: inner.lstat.bind(inner),
    realpath: inner.realpath.bind(inner),
    readlink: inner.readlink.bind(inner),
    writeFile: async (...args: Parameters<Environment['writeFile']>) => {
      recent.delete(args[0]);
      return inner.writeFile(...args);
    },
    mkdir: inner.mkdir.bind(inner),
    readdir: inner.readdir.bind(inner),
    rm: inner.rm.bind(inner),
    rename: inner.rename.bind(inner),
    chmod: inner.chmod.bind(inner),
    mtimes: inner.mtimes.bind(inner),
    watch: inner.watch.bind(inner),
    exec: inner.exec.bind(inner),
    search: inner.search.bind(inner),
    close: inner.close.bind(inner),
  };
  return environment;
}

async function looksBinary(inner: Environment, path: string, size: number): Promise<boolean> {
  const reader = await inner.openRead(path).catch(() => null);
  if (!reader) return true;
  try {
    const head = Buffer.alloc(Math.min(SNIFF_BYTES, size));
    const n = head.length ? await reader.read(head, 0, head.length) : 0;
    return head.subarray(0, n).includes(0);
  } finally {
    await reader.close().catch(() => {});
  }
}

function decodeUtf8(data: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(data);
  } catch {
    return null;
  }
}

function memoryReader(bytes: Buffer): RandomReader {
  return {
    size: bytes.length,
    read: async (into, position, length) => bytes.copy(into, 0, position, Math.min(bytes.length, position + length)),
    close: async () => {},
  };
}
