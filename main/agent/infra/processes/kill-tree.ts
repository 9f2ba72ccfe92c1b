import { jobProcesses, markedProcessesSync, processTable } from './process-table';

/** How long a process tree gets between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 5_000;

function signal(pid: number, sig: NodeJS.Signals | 0): boolean {
  if (pid <= 1 || pid === process.pid) return false;
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}

/** Send a signal to a process group (negative pid). False when the group is gone. */
export function signalGroup(pgid: number, sig: NodeJS.Signals | 0): boolean {
  if (pgid <= 1 || pgid === process.pid) return false;
  try {
    process.kill(-pgid, sig);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface KillableJob {
  /** The leader's pid, which is also its process group id (jobs run in a session of their own). */
  pid: number;
  /** `NAME=value` set in the job's environment, to find processes that left its group. */
  marker?: string;
}

/**
 * Stop a job's whole process tree: SIGTERM to its group and every process found for it, up to `graceMs`
 * for them to exit, then SIGKILL to whatever is left. Resolves when nothing of the job is alive (or
 * a second after SIGKILL, whichever comes first).
 */
export async function killTree(job: KillableJob, graceMs = KILL_GRACE_MS): Promise<void> {
  // The group first (at once, before any await), then one look for the rest of the tree, markers included.
  signalGroup(job.pid, 'SIGTERM');
  const found = await jobProcesses(job);
  for (const p of found) signal(p.pid, 'SIGTERM');
  // A stopped process cannot act on SIGTERM until it is continued.
  signalGroup(job.pid, 'SIGCONT');
  for (const p of found) signal(p.pid, 'SIGCONT');
  const alive = async () => {
    const members = await jobProcesses({ pid: job.pid });
    const ids = new Set(members.map((p) => p.pid));
    const table = await processTable();
    for (const p of found) if (!ids.has(p.pid) && table.some((t) => t.pid === p.pid && t.state !== 'Z')) ids.add(p.pid);
    return [...ids];
  };
  const deadline = Date.now() + graceMs;
  let remaining = await alive();
  while (remaining.length && Date.now() < deadline) {
    await sleep(Math.min(50, Math.max(1, deadline - Date.now())));
    remaining = await alive();
  }
  if (!remaining.length) return;
  signalGroup(job.pid, 'SIGKILL');
  for (const pid of remaining) signal(pid, 'SIGKILL');
  const hardDeadline = Date.now() + 1_000;
  while (Date.now() < hardDeadline && (await alive()).length) await sleep(20);
}

// Process groups started by this process that may still be alive, with their job's marker. When the
// process exits (however it exits, short of SIGKILL), they are killed: quitting leaves no orphan.
const liveGroups = new Map<number, string | undefined>();
let exitHookInstalled = false;

export function trackGroup(pgid: number, marker?: string): void {
  liveGroups.set(pgid, marker);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const group of liveGroups.keys()) signalGroup(group, 'SIGKILL');
      const markers = new Set([...liveGroups.values()].filter((m): m is string => Boolean(m)));
      for (const pid of markedProcessesSync(markers)) signal(pid, 'SIGKILL');
    });
  }
}

/** Forget a group once it has no member left (so a recycled id is never signalled). */
export function untrackGroupIfEmpty(pgid: number): void {
  if (!signalGroup(pgid, 0)) liveGroups.delete(pgid);
}

/** Stop what is left of these jobs: processes a finished command left running (`cmd &`, nohup). */
export async function killLeftovers(jobs: Iterable<KillableJob>, graceMs = KILL_GRACE_MS): Promise<void> {
  const alive = [...jobs].filter((job) => signalGroup(job.pid, 0));
  await Promise.allSettled(alive.map((job) => killTree(job, graceMs)));
  for (const job of alive) untrackGroupIfEmpty(job.pid);
}
