import type { FileInfo } from '#contract/environment';

/** What Deft last saw of a file: enough to notice that something else changed it. */
export interface FileStamp {
  mtimeMs: number;
  size: number;
  ino: number;
  /** When the session read or wrote it. */
  at: number;
}

const stampOf = (stats: FileInfo, at: number): FileStamp => ({ mtimeMs: stats.mtimeMs, size: stats.size, ino: stats.ino, at });

/**
 * The stale guard's memory for one session: which files the agent has read or written, and how they
 * looked then. Write and Edit refuse to change an existing file the session has not read, or one
 * that changed on disk since the agent last read or wrote it.
 */
export class FileTracker {
  private readonly stamps = new Map<string, FileStamp>();
  /** Set when the stamps changed since the last `snapshot()`. */
  dirty = false;

  constructor(private readonly now: () => number = Date.now) {}

  /** The agent read or wrote `realPath`; `stats` is the file as it is now. */
  record(realPath: string, stats: FileInfo): void {
    this.stamps.set(realPath, stampOf(stats, this.now()));
    this.dirty = true;
  }

  /** Whether the agent read or wrote `realPath` in this session. */
  has(realPath: string): boolean {
    return this.stamps.has(realPath);
  }

  forget(realPath: string): void {
    if (this.stamps.delete(realPath)) this.dirty = true;
  }

  /** Why the agent may not change this existing file, or null when it may. */
  refusal(realPath: string, display: string, current: FileInfo, action: 'write' | 'edit'): string | null {
    const seen = this.stamps.get(realPath);
    if (!seen) {
      return `${display} has not been read in this session yet. Read it first (Read with path "${display}"), then ${action === 'edit' ? 'make the edit' : 'write it'} again, so you change what is really in the file.`;
    }
    if (seen.mtimeMs !== current.mtimeMs || seen.size !== current.size || seen.ino !== current.ino) {
      const when = new Date(current.mtimeMs)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC');
      return `${display} was modified on disk since you last read or wrote it (it is now ${current.size.toLocaleString('en-US')} bytes, last modified ${when}); something other than your tools changed it. Read it again, then redo the ${action} against its current content.`;
    }
    return null;
  }

  snapshot(): Record<string, FileStamp> {
    this.dirty = false;
    return Object.fromEntries(this.stamps);
  }

  restore(saved: unknown): void {
    if (!saved || typeof saved !== 'object') return;
    for (const [path, stamp] of Object.entries(saved as Record<string, Partial<FileStamp>>)) {
      if (typeof stamp?.mtimeMs === 'number' && typeof stamp.size === 'number' && typeof stamp.ino === 'number') {
        this.stamps.set(path, { mtimeMs: stamp.mtimeMs, size: stamp.size, ino: stamp.ino, at: typeof stamp.at === 'number' ? stamp.at : 0 });
      }
    }
  }
}
