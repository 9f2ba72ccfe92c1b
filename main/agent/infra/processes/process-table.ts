import { readFileSync, readdirSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { promisify } from 'node:util';

/** One process as the kernel reports it. `state` is the ps/proc state letter (R, S, D, T, Z…). */
export interface ProcessEntry {
  pid: number;
  ppid: number;
  pgid: number;
  state: string;
}

const hasProc = process.platform === 'linux';
/** `ps` (where there is no /proc); node:child_process is loaded with the first call (issue 36). */
const run = (file: string, args: string[], options: { maxBuffer: number }) =>
  promisify(process.getBuiltinModule('node:child_process').execFile)(file, args, options);

function parseStat(text: string): ProcessEntry | null {
  // "pid (comm) state ppid pgrp …" — comm may hold spaces and parentheses, so split after the last ')'.
  const close = text.lastIndexOf(')');
  const pid = Number.parseInt(text, 10);
  const fields = text.slice(close + 2).split(' ');
  if (close < 0 || !Number.isFinite(pid) || fields.length < 3) return null;
  return { pid, state: fields[0]!, ppid: Number(fields[1]), pgid: Number(fields[2]) };
}

async function readProcEntry(pid: number): Promise<ProcessEntry | null> {
  try {
    return parseStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

async function scan(): Promise<ProcessEntry[]> {
  if (hasProc) {
    const names = await readdir('/proc');
    const entries = await Promise.all(names.filter((n) => /^\d+$/.test(n)).map((n) => readProcEntry(Number(n))));
    return entries.filter((e): e is ProcessEntry => e !== null);
  }
  const { stdout } = await run('ps', ['-A', '-o', 'pid=,ppid=,pgid=,stat='], { maxBuffer: 16 * 1024 * 1024 });
  return stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f.length >= 4)
    .map(([pid, ppid, pgid, stat]) => ({ pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), state: stat!.charAt(0) }));
}

let cached: { at: number; table: Promise<ProcessEntry[]> } | null = null;

/** The process table. Calls within a few milliseconds share one read (many tasks stopping at once). */
export function processTable(maxAgeMs = 25): Promise<ProcessEntry[]> {
  const now = Date.now();
  if (cached && now - cached.at <= maxAgeMs) return cached.table;
  const table = scan().catch(() => []);
  cached = { at: now, table };
  return table;
}

async function markerOf(pid: number, name: string): Promise<string | undefined> {
  try {
    const environ = await readFile(`/proc/${pid}/environ`, 'utf8');
    const prefix = `${name}=`;
    return environ.split('\0').find((entry) => entry.startsWith(prefix));
  } catch {
    return undefined;
  }
}

let markerCache: { at: number; name: string; markers: Promise<Map<number, string>> } | null = null;

/**
 * `NAME=value` of the given variable for every process that has it (Linux only; empty elsewhere). Calls
 * within a few milliseconds share one pass over /proc, so stopping many tasks at once reads it once.
 */
export function processMarkers(name: string, maxAgeMs = 25): Promise<Map<number, string>> {
  const now = Date.now();
  if (markerCache && markerCache.name === name && now - markerCache.at <= maxAgeMs) return markerCache.markers;
  const markers = (async () => {
    const found = new Map<number, string>();
    if (!hasProc) return found;
    const table = await processTable(maxAgeMs);
    const values = await Promise.all(table.map(async (p) => [p.pid, await markerOf(p.pid, name)] as const));
    for (const [pid, value] of values) if (value) found.set(pid, value);
    return found;
  })();
  markerCache = { at: now, name, markers };
  return markers;
}

/** Whether the process carries exactly `NAME=value` in its environment (Linux only). */
export async function hasEnvMarker(pid: number, marker: string): Promise<boolean> {
  if (!hasProc) return false;
  return (await markerOf(pid, marker.slice(0, marker.indexOf('=')))) === marker;
}

/** The processes of a job: its process group, the descendants of its leader, and anything carrying its marker. Zombies excluded. */
export async function jobProcesses(job: { pid: number; marker?: string }, table?: ProcessEntry[]): Promise<ProcessEntry[]> {
  const all = table ?? (await processTable());
  const live = all.filter((p) => p.state !== 'Z' && p.pid !== process.pid && p.pid > 1);
  const found = new Map<number, ProcessEntry>();
  for (const p of live) if (p.pgid === job.pid || p.pid === job.pid) found.set(p.pid, p);
  const children = new Map<number, ProcessEntry[]>();
  for (const p of live) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const queue = [...found.keys()];
  while (queue.length) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (!found.has(child.pid)) {
        found.set(child.pid, child);
        queue.push(child.pid);
      }
    }
  }
  if (job.marker && hasProc) {
    const markers = await processMarkers(job.marker.slice(0, job.marker.indexOf('=')));
    for (const p of live) if (!found.has(p.pid) && markers.get(p.pid) === job.marker) found.set(p.pid, p);
  }
  return [...found.values()];
}

/** Whether every process of a job is asleep or stopped (waiting on input, a timer, the network), none running or in disk I/O. */
export async function jobIsWaiting(job: { pid: number }): Promise<boolean> {
  const members = await jobProcesses(job);
  return members.length > 0 && members.every((p) => p.state === 'S' || p.state === 'T' || p.state === 'I');
}

/** Processes carrying one of these `NAME=value` markers, read synchronously (for the process 'exit' hook, where nothing async runs). */
export function markedProcessesSync(markers: ReadonlySet<string>): number[] {
  if (!hasProc || !markers.size) return [];
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (
        readFileSync(`/proc/${name}/environ`, 'utf8')
          .split('\0')
          .some((entry) => markers.has(entry))
      )
        found.push(Number(name));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}
