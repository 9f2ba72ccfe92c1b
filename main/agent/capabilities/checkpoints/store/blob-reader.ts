import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { type GitPlaces, spawnGit } from './git';
import { type ObjectType, objectId } from './objects';

/** A reader with nothing to do exits after this long, so no git lingers between reviews. */
const IDLE_MS = 20_000;

interface Pending {
  id: string;
  resolve: (content: Buffer) => void;
  reject: (error: Error) => void;
}

/**
 * Blobs read through one long-running `git cat-file --batch` instead of a git process per blob (a review
 * pane or a rewind preview reads two per file). Requests are answered in the order they were sent; a reader
 * idle for a while exits, and the next read starts another. Objects written after it started are found
 * (git looks for an object it does not know again on disk).
 */
export class BlobReader {
  private child: ChildProcessWithoutNullStreams | null = null;
  private readonly queue: Pending[] = [];
  private buffered: Buffer = Buffer.alloc(0);
  private idle: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly places: GitPlaces) {}

  read(id: string): Promise<Buffer> {
    if (!/^[0-9a-f]{40,64}$/.test(id)) return Promise.reject(new Error(`"${id}" is not an object id.`));
    return new Promise((resolve, reject) => {
      const child = this.process();
      this.queue.push({ id, resolve, reject });
      if (this.idle) clearTimeout(this.idle);
      this.idle = null;
      held(child, true);
      child.stdin.write(`${id}\n`);
    });
  }

  /** End the reader (after a repack, or when the store is no longer used); what waits fails. */
  close(): void {
    const child = this.child;
    this.child = null;
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    this.fail(new Error('The checkpoint store closed its object reader.'));
    child?.stdin.end();
    child?.kill();
  }

  private process(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const child = spawnGit(this.places, ['cat-file', '--batch']);
    this.child = child;
    this.buffered = Buffer.alloc(0);
    child.stdout.on('data', (chunk: Buffer) => {
      this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
      this.drain();
    });
    child.stdin.on('error', () => {});
    child.stderr.resume();
    const ended = (why: string) => {
      if (this.child !== child) return;
      this.child = null;
      this.fail(new Error(`git cat-file stopped: ${why}`));
    };
    child.on('error', (error) => ended(error.message));
    child.on('close', (code) => ended(`exit ${code}`));
    return child;
  }

  /** Hand out every complete answer buffered so far: "<id> blob <size>\n<content>\n", or "<id> missing\n". */
  private drain(): void {
    for (;;) {
      const next = this.queue[0];
      const lineEnd = this.buffered.indexOf(0x0a);
      if (!next || lineEnd < 0) break;
      const header = this.buffered.subarray(0, lineEnd).toString('utf8');
      if (header.endsWith(' missing')) {
        this.queue.shift();
        this.buffered = this.buffered.subarray(lineEnd + 1);
        next.reject(new Error(`The checkpoint store has lost object ${next.id}.`));
        continue;
      }
      const size = Number(header.split(' ')[2]);
      if (!Number.isFinite(size)) {
        this.close();
        next.reject(new Error(`git cat-file answered "${header.slice(0, 100)}".`));
        return;
      }
      if (this.buffered.length < lineEnd + 1 + size + 1) break;
      this.queue.shift();
      const content = Buffer.from(this.buffered.subarray(lineEnd + 1, lineEnd + 1 + size));
      if (intact(next.id, header.split(' ')[1] ?? '', content)) next.resolve(content);
      else next.reject(new Error(`The checkpoint store's object ${next.id} is damaged (its bytes do not hash to its id).`));
      this.buffered = this.buffered.subarray(lineEnd + 1 + size + 1);
    }
    if (!this.queue.length && this.child && !this.idle) {
      // Idle, it does not keep the process alive; the core's close ends it, or the timer does.
      held(this.child, false);
      this.idle = setTimeout(() => this.close(), IDLE_MS);
      this.idle.unref();
    }
  }

  private fail(error: Error): void {
    for (const pending of this.queue.splice(0)) pending.reject(error);
  }
}

/**
 * Whether an object's bytes hash to its id. git does not check on reading, and a store seeded from a
 * repository reads that repository's objects too: a rewind never writes bytes other than those recorded.
 */
export function intact(id: string, type: string, content: Buffer): boolean {
  if (id.length !== 40 || !['blob', 'tree', 'commit'].includes(type)) return true;
  return objectId(type as ObjectType, content) === id;
}

/** Whether the reader keeps Node's event loop alive: while a read waits, yes; idle, no. */
function held(child: ChildProcessWithoutNullStreams, on: boolean): void {
  for (const handle of [child, child.stdin, child.stdout, child.stderr] as Array<{ ref?: () => void; unref?: () => void }>) {
    if (on) handle.ref?.();
    else handle.unref?.();
  }
}
