import { randomBytes } from 'node:crypto';
import { open, readFile, readdir, stat } from 'node:fs/promises';
import { constants } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { type TaskKind, type TaskStatus, taskSchemas } from '#protocol/schemas/tasks';
import type { TaskRecord } from '#contract/tasks';
import { terminalText } from '#protocol/helpers/terminal-text';
import { writeFileAtomic } from '../platform/files';
import { builtOnce } from '#protocol/helpers/built-once';

const ID_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** The kind plus 8 base-36 characters: `bash-1a2b3c4d`. */
export function newTaskId(kind: TaskKind): string {
  const bytes = randomBytes(8);
  let id = '';
  for (const byte of bytes) id += ID_ALPHABET[byte % 36];
  return `${kind}-${id}`;
}

export const tasksDir = (sessionDir: string) => join(sessionDir, 'tasks');
export const taskLogPath = (sessionDir: string, id: string) => join(tasksDir(sessionDir), id, 'output.log');
const recordPath = (sessionDir: string, id: string) => join(tasksDir(sessionDir), `${id}.json`);

export async function saveRecord(sessionDir: string, record: TaskRecord): Promise<void> {
  await writeFileAtomic(recordPath(sessionDir, record.id), JSON.stringify(record, null, 2) + '\n', 0o600);
}

/** A task's file, built with the first one read. */
const persisted = builtOnce(() =>
  taskSchemas()
    .TaskInfo.omit({ tail: true })
    .extend({ notified: z.boolean().default(false), cleared: z.boolean().optional() }),
);

/** Every task record of a session; unreadable files are skipped (and reported). */
export async function loadRecords(sessionDir: string): Promise<{ records: TaskRecord[]; problems: string[] }> {
  let names: string[];
  try {
    names = (await readdir(tasksDir(sessionDir))).filter((n) => /^[a-z]+-[0-9a-z]{8}\.json$/.test(n));
  } catch {
    return { records: [], problems: [] };
  }
  const records: TaskRecord[] = [];
  const problems: string[] = [];
  for (const name of names) {
    try {
      const parsed = persisted().safeParse(JSON.parse(await readFile(join(tasksDir(sessionDir), name), 'utf8')));
      if (!parsed.success) throw new Error(parsed.error.issues[0]?.message ?? 'invalid');
      const id = name.slice(0, -'.json'.length);
      if (parsed.data.id !== id) throw new Error(`holds task ${parsed.data.id}, not ${id}`);
      // The log is always the one under this session: a record never points the UI or the model elsewhere.
      records.push({ ...parsed.data, outputPath: taskLogPath(sessionDir, id) });
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
    }
  }
  return { records, problems };
}

/** The size of a log, and up to `length` bytes of it from `offset` (default: its last `length` bytes), cleaned for reading. */
export async function readLog(path: string, offset: number | undefined, length: number): Promise<{ text: string; offset: number; end: number; size: number }> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    return { text: '', offset: 0, end: 0, size: 0 };
  }
  const start = Math.min(size, offset ?? Math.max(0, size - length));
  const end = Math.min(size, start + length);
  if (end <= start) return { text: '', offset: start, end: start, size };
  // A log is a file Deft wrote: never follow a link put in its place.
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const buffer = Buffer.alloc(end - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    return { text: terminalText(buffer.subarray(0, bytesRead).toString('utf8')), offset: start, end: start + bytesRead, size };
  } finally {
    await handle.close();
  }
}

/** The last few lines of a log, for the tasks panel and notifications. */
export function lastLines(text: string, lines: number, maxChars = 4_000): string {
  const trimmed = text.replace(/\n+$/, '');
  const parts = trimmed.split('\n');
  return parts.slice(-lines).join('\n').slice(-maxChars);
}

export const isTerminal = (status: TaskStatus) => status !== 'running';
