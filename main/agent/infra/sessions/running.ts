import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '#infra/platform/process-alive';

/**
 * `running.json` in a session's folder while one of its turns runs (sessions in a Deft worktree only): what another
 * process — another window, `deft worktrees discard` — reads to know that a session is working in a folder it would
 * remove. It names the process; one left by a process that died is not counted.
 */
export const RUNNING_FILE = 'running.json';

interface RunningMark {
  pid: number;
  host: string;
  since: number;
}

/** Mark the session in `dir` running (by this process). Never throws. */
export function markRunning(dir: string, now = Date.now()): void {
  const mark: RunningMark = { pid: process.pid, host: hostname(), since: now };
  try {
    writeFileSync(join(dir, RUNNING_FILE), JSON.stringify(mark) + '\n', { mode: 0o600 });
  } catch {
    // A session folder that cannot be written: nothing more can be said of it.
  }
}

/** The session in `dir` no longer runs here: remove the mark if it is this process's. Never throws. */
export function clearRunning(dir: string): void {
  try {
    const mark = JSON.parse(readFileSync(join(dir, RUNNING_FILE), 'utf8')) as Partial<RunningMark>;
    if (mark.pid === process.pid && mark.host === hostname()) rmSync(join(dir, RUNNING_FILE), { force: true });
  } catch {
    // No mark, or unreadable: nothing to remove.
  }
}

/** Whether the session in `dir` has a turn running in a live process (on another machine sharing the folder: assumed so). */
export async function isRunning(dir: string): Promise<boolean> {
  try {
    const mark = JSON.parse(await readFile(join(dir, RUNNING_FILE), 'utf8')) as Partial<RunningMark>;
    if (typeof mark.pid !== 'number' || !Number.isInteger(mark.pid) || mark.pid <= 0) return false;
    return mark.host !== hostname() || processAlive(mark.pid);
  } catch {
    return false;
  }
}

/** Whether the session in `dir` has a turn running in another live process (not this one). */
export async function isRunningElsewhere(dir: string): Promise<boolean> {
  try {
    const mark = JSON.parse(await readFile(join(dir, RUNNING_FILE), 'utf8')) as Partial<RunningMark>;
    if (mark.pid === process.pid && mark.host === hostname()) return false;
  } catch {
    return false;
  }
  return isRunning(dir);
}
