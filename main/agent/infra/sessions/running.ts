import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { builtOnce } from '#protocol/helpers/built-once';
import { processAlive } from '#infra/platform/process-alive';

/**
 * `running.json` in a session's folder while one of its turns runs (sessions in a Deft worktree only): what another
 * process — another window, `deft worktrees discard`, the sidebar of a window on the same repository — reads to know
 * that a session is working in a folder, and whether it waits for the user (an approval or a question). It names the
 * process; one left by a process that died is not counted. Written owner-only and atomically; read as untrusted input.
 */
export const RUNNING_FILE = 'running.json';

/** A mark as written, built the first time one is read (a run that reads none never builds it). */
const runningMark = builtOnce(() =>
  z.object({
    pid: z.number().int().positive(),
    host: z.string().max(255),
    since: z.number(),
    /** An approval or a question of the session waits for the user. */
    waiting: z.boolean().optional(),
  }),
);
type RunningMark = z.infer<ReturnType<typeof runningMark>>;

/** What a session in a worktree is doing now, as its mark says. */
export type LiveState = 'running' | 'waiting' | 'idle';

/** A mark is a few dozen bytes: anything much larger is not one. */
const MAX_MARK_BYTES = 1024;

const parse = (text: string): RunningMark | null => {
  if (text.length > MAX_MARK_BYTES) return null;
  try {
    const parsed = runningMark().safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
};

const mine = (mark: RunningMark | null): mark is RunningMark => mark !== null && mark.pid === process.pid && mark.host === hostname();

function write(dir: string, mark: RunningMark): void {
  const file = join(dir, RUNNING_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, JSON.stringify(mark) + '\n', { mode: 0o600 });
    renameSync(temp, file);
  } catch {
    // A session folder that cannot be written: nothing more can be said of it.
    rmSync(temp, { force: true });
  }
}

const readMark = (dir: string): RunningMark | null => {
  try {
    return parse(readFileSync(join(dir, RUNNING_FILE), 'utf8'));
  } catch {
    return null;
  }
};

/** Mark the session in `dir` running (by this process). Never throws. */
export function markRunning(dir: string, now = Date.now()): void {
  write(dir, { pid: process.pid, host: hostname(), since: now });
}

/** Say whether the session in `dir`, running here, waits for the user; only this process's mark is changed. Never throws. */
export function markWaiting(dir: string, waiting: boolean): void {
  const mark = readMark(dir);
  if (!mine(mark) || (mark.waiting ?? false) === waiting) return;
  const { waiting: _was, ...rest } = mark;
  write(dir, waiting ? { ...rest, waiting } : rest);
}

/** The session in `dir` no longer runs here: remove the mark if it is this process's. Never throws. */
export function clearRunning(dir: string): void {
  if (mine(readMark(dir))) rmSync(join(dir, RUNNING_FILE), { force: true });
}

async function liveMark(dir: string): Promise<RunningMark | null> {
  try {
    const mark = parse(await readFile(join(dir, RUNNING_FILE), 'utf8'));
    // On another machine sharing the folder the process cannot be checked: assumed alive.
    return mark && (mark.host !== hostname() || processAlive(mark.pid)) ? mark : null;
  } catch {
    return null;
  }
}

/** Whether the session in `dir` has a turn running in a live process (on another machine sharing the folder: assumed so). */
export async function isRunning(dir: string): Promise<boolean> {
  return (await liveMark(dir)) !== null;
}

/** The session in `dir`: running, waiting for the user (its turn asked something), or idle. */
export async function liveState(dir: string): Promise<LiveState> {
  const mark = await liveMark(dir);
  return mark === null ? 'idle' : mark.waiting ? 'waiting' : 'running';
}

/** Whether the session in `dir` has a turn running in another live process (not this one). */
export async function isRunningElsewhere(dir: string): Promise<boolean> {
  try {
    if (mine(parse(await readFile(join(dir, RUNNING_FILE), 'utf8')))) return false;
  } catch {
    return false;
  }
  return isRunning(dir);
}
