import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { SessionEvent } from '#protocol';
import { CommandError } from '#contract/errors';
import { type EventLine } from './log-scan';
import { scanLogFile } from './log-scan-file';
import { readLogLines } from './log-read';
import { LOG_VERSION, type LogRecord } from './records';
import { waitingPrompts } from './repair';

/** Turns the user started (typed, or a skill they ran) count as prompts, as `deft checkpoints` numbers them. */
const PROMPT_ORIGINS = new Set(['user', 'skill']);

/** Where a fork ends: just after this turn's end (null: the whole log, nothing running), and how many prompts it holds. */
export interface ForkCut {
  turnId: string | null;
  atPrompt: number;
  /** The byte the copied part of the log ends at (exclusive). */
  end: number;
  /** Events after `end` that still belong to the turn (its changed files, noted as it ended). */
  after: EventLine[];
  /** The turns the fork holds. */
  turns: number;
  /** Queued messages still waiting at the cut: they belong to the original, not the fork. */
  waiting: Set<string>;
  /** The original log's version (a fork of an older log is validated as it is when read). */
  version: number;
}

type Started = Extract<SessionEvent, { type: 'turn.started' }>;

/**
 * Where to cut a session's log for a fork: after prompt `atPrompt` (counted from 1 among the prompts the user
 * started), after the turn `turnId` (any turn, e.g. a message the window points at), or, with neither, the whole
 * session — up to its last finished turn when one is running. Throws a CommandError saying why it cannot.
 */
export async function findForkCut(path: string, at: { atPrompt?: number; turnId?: string }, running: boolean): Promise<ForkCut> {
  const scan = await scanLogFile(path);
  const version = scan.header?.version ?? LOG_VERSION;
  const starts: Array<{ event: Started; index: number; prompt: number }> = [];
  const ends = new Map<string, number>();
  let prompts = 0;
  scan.lines.forEach((line, index) => {
    const event = line.event;
    if (event?.type === 'turn.started') {
      if (PROMPT_ORIGINS.has(event.origin ?? 'user')) prompts++;
      starts.push({ event, index, prompt: prompts });
    } else if (event?.type === 'turn.ended') ends.set(event.turnId, index);
  });
  const finished = starts.filter((s) => ends.has(s.event.turnId));
  let chosen: (typeof starts)[number] | undefined;
  if (at.turnId !== undefined) {
    chosen = starts.find((s) => s.event.turnId === at.turnId);
    if (!chosen) throw new CommandError('not_found', `This session has no turn "${at.turnId}".`);
  } else if (at.atPrompt !== undefined) {
    if (!Number.isInteger(at.atPrompt) || at.atPrompt < 1 || at.atPrompt > prompts) {
      const range = prompts === 0 ? 'it has no prompts yet' : prompts === 1 ? 'it has 1 prompt: use 1' : `it has ${prompts} prompts: use 1 to ${prompts}`;
      throw new CommandError('invalid_request', `Cannot fork at prompt ${at.atPrompt}: ${range}.`);
    }
    // The turn of the prompt itself (a goal's next turn or a task's report after it is not part of it).
    chosen = starts.find((s) => s.prompt === at.atPrompt && PROMPT_ORIGINS.has(s.event.origin ?? 'user'));
  } else if (running || starts.some((s) => !ends.has(s.event.turnId))) {
    chosen = finished.at(-1);
    if (!chosen) throw new CommandError('busy', 'The first turn of this session is still running: there is nothing finished to fork yet.');
  } else {
    const waiting = new Set(waitingPrompts(scan.lines.flatMap((l) => (l.event ? [l.event] : []))).map((w) => w.queueId));
    return { turnId: null, atPrompt: prompts, end: scan.size, after: [], turns: starts.length, waiting, version };
  }
  const endIndex = ends.get(chosen!.event.turnId);
  if (endIndex === undefined || endIndex < chosen!.index) {
    throw new CommandError('busy', `Prompt ${chosen!.prompt} has not finished (its turn is still running). Wait for it to end, or fork at an earlier prompt.`);
  }
  const endLine = scan.lines[endIndex]!;
  const kept = scan.lines.slice(0, endIndex + 1);
  const next = scan.lines.findIndex((l, i) => i > endIndex && l.type === 'turn.started');
  const after = scan.lines
    .slice(endIndex + 1, next === -1 ? undefined : next)
    .filter((l) => (l.event as { turnId?: string } | undefined)?.turnId === chosen!.event.turnId);
  const waiting = new Set(waitingPrompts(kept.flatMap((l) => (l.event ? [l.event] : []))).map((w) => w.queueId));
  return {
    turnId: chosen!.event.turnId,
    atPrompt: chosen!.prompt,
    end: endLine.end + 1,
    after,
    turns: starts.filter((s) => s.index <= chosen!.index).length,
    waiting,
    version,
  };
}

/** Session events a fork leaves out: the original's own summaries, and messages still queued at the cut. */
function keptEvent(event: SessionEvent, cut: ForkCut): boolean {
  if (event.type === 'session.updated') return false;
  if (event.type === 'prompt.queued' || event.type === 'prompt.queue.edited' || event.type === 'prompt.queue.removed') return !cut.waiting.has(event.queueId);
  return true;
}

/**
 * Write the fork's log: the original's records up to the cut, in order and unchanged (so the model's context,
 * compactions, undos and state replay exactly as they were), its events stamped with the fork's id, and a header
 * of its own. The original is only read.
 */
export async function writeForkLog(
  source: string,
  target: string,
  cut: ForkCut,
  header: { sessionId: string; workspace: string; createdAt: number },
): Promise<void> {
  const out = createWriteStream(target, { flags: 'wx', mode: 0o600 });
  const failed = once(out, 'error').then(([error]) => {
    throw error;
  });
  failed.catch(() => {});
  const write = async (record: LogRecord | string) => {
    const line = (typeof record === 'string' ? record : JSON.stringify(record)) + '\n';
    if (!out.write(line)) await Promise.race([once(out, 'drain'), failed]);
  };
  const event = (e: SessionEvent) => (keptEvent(e, cut) ? write({ r: 'event', e: { ...e, sessionId: header.sessionId } }) : undefined);
  await write({ r: 'header', version: cut.version, ...header });
  if (cut.end > 0) {
    const lines = createInterface({ input: createReadStream(source, { start: 0, end: cut.end - 1 }), crlfDelay: Infinity });
    for await (const line of lines) {
      if (!line.trim()) continue;
      let record: LogRecord;
      try {
        record = JSON.parse(line) as LogRecord;
      } catch {
        continue; // a line the original cannot read either
      }
      // A snapshot tells where things sit in the original's log, not in the fork's.
      if (record.r === 'header' || record.r === 'snapshot') continue;
      if (record.r === 'event') await event(record.e);
      else await write(line);
    }
  }
  for (const e of await readLogLines(source, cut.after, cut.version === LOG_VERSION)) if (e) await event(e);
  out.end();
  await Promise.race([once(out, 'finish'), failed]);
}
