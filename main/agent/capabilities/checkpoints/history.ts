import type { PromptCheckpoint, SkippedFileInfo } from '#protocol';
import type { Checkpoint, CheckpointKind } from './store/store';
import type { CheckpointStoreApi } from './store/store-api';

/** Turns started by the user (typed, or a skill they ran) count as prompts; the ones Deft started do not. */
const PROMPT_ORIGINS = new Set(['user', 'skill']);

/**
 * Checkpoints that end a stretch in which nothing of the turn ran: taken just before Deft acts (a turn, a step's
 * approved calls, a rewind or a revert) or at a turn's end. What changed in such a stretch — the user's own edits
 * in their editor while the model wrote or waited for an answer — was changed outside the turn. The other
 * stretches end after a step's calls ('step'), a background task ('task') or a rewind's writes: the turn's own.
 */
const OUTSIDE_ENDS = new Set<CheckpointKind>(['turn', 'tools', 'turn-end', 'rewind', 'revert']);

/** The checkpoint taken just before a turn began, if any. */
export function turnCheckpoint(checkpoints: readonly Checkpoint[], turnId: string): Checkpoint | undefined {
  return checkpoints.find((c) => c.kind === 'turn' && c.turnId === turnId);
}

/** The state at the end of a turn: its last checkpoint (the one before it when nothing changed). */
export function turnEndCheckpoint(checkpoints: readonly Checkpoint[], turnId: string): Checkpoint | undefined {
  return checkpoints.filter((c) => c.turnId === turnId).at(-1);
}

/**
 * The session's prompts (turns with a checkpoint before them), numbered from 1 among those the user started,
 * with the number of files each changed up to the next turn (or up to `nowTree`).
 */
export async function promptList(
  store: CheckpointStoreApi,
  checkpoints: readonly Checkpoint[],
  contextTurns: readonly string[],
  nowTree: string | null,
): Promise<PromptCheckpoint[]> {
  const turns = checkpoints.filter((c) => c.kind === 'turn');
  const inContext = new Set(contextTurns);
  let counted = 0;
  const numbers = turns.map((turn) => (PROMPT_ORIGINS.has(turn.origin ?? 'user') ? ++counted : 0));
  return Promise.all(
    turns.map(async (turn, i) => {
      const next = turns[i + 1];
      const endTree = next?.tree ?? nowTree ?? turnEndCheckpoint(checkpoints, turn.turnId!)?.tree ?? turn.tree;
      const changed = endTree === turn.tree ? 0 : (await store.changes(turn.tree, endTree)).length;
      return {
        turnId: turn.turnId!,
        index: numbers[i]!,
        origin: turn.origin ?? 'user',
        text: turn.prompt ?? '',
        at: turn.at,
        hasCheckpoint: true,
        changedFiles: changed,
        inConversation: inContext.has(turn.turnId!),
      };
    }),
  );
}

/**
 * Paths changed outside Deft after `from`: in every stretch ending at a checkpoint taken just before Deft
 * acted, and in the stretch from the last checkpoint to `nowTree`.
 */
export async function changedOutside(store: CheckpointStoreApi, later: readonly Checkpoint[], nowTree: string): Promise<Set<string>> {
  const outside = new Set<string>();
  for (let i = 1; i < later.length; i++) {
    const [a, b] = [later[i - 1]!, later[i]!];
    if (OUTSIDE_ENDS.has(b.kind) && a.tree !== b.tree) for (const change of await store.changes(a.tree, b.tree)) outside.add(change.path);
  }
  const last = later.at(-1);
  if (last && last.tree !== nowTree) for (const change of await store.changes(last.tree, nowTree)) outside.add(change.path);
  return outside;
}

/** Files left out of either state (by path, the latest reason). */
export function notCaptured(...lists: ReadonlyArray<readonly SkippedFileInfo[]>): SkippedFileInfo[] {
  const byPath = new Map<string, SkippedFileInfo>();
  for (const list of lists) for (const file of list) byPath.set(file.path, file);
  return [...byPath.values()].sort((a, b) => a.path.localeCompare(b.path));
}

/** What one session's own stretch (its calls, a task, a rewind's writes) left in one file, and when. */
interface Made {
  path: string;
  /** The blob it left (git's zero id when it deleted the file). */
  blob: string;
  start: number;
  end: number;
}

/** What the session's own stretches in [since, until] left in each file they changed. */
async function madeBy(store: CheckpointStoreApi, checkpoints: readonly Checkpoint[], since: number, until: number): Promise<Made[]> {
  const made: Made[] = [];
  for (let i = 1; i < checkpoints.length; i++) {
    const [a, b] = [checkpoints[i - 1]!, checkpoints[i]!];
    if (OUTSIDE_ENDS.has(b.kind) || a.tree === b.tree || b.at < since || a.at > until) continue;
    for (const change of await store.changes(a.tree, b.tree)) made.push({ path: change.path, blob: change.newBlob, start: a.at, end: b.at });
  }
  return made;
}

/**
 * Of `changes` (each with what the file holds at the end of the range, `blob`), the paths another Deft session in
 * this folder made as they are: one of its own stretches in [since, until] left the file so, and none of this
 * session's began later and did too. A step that ran a command takes in the whole folder as it ends, so what
 * another session wrote meanwhile shows in it too; the stretch that began last — inside the other — made it. (Two
 * commands running at once in two sessions cannot be told apart: a file either wrote goes to the later step.)
 * Empty without other sessions' checkpoints in the range: known from each session's latest checkpoint time where the store
 * tells it (`latestTimes`), without listing every checkpoint; otherwise from one listing.
 */
export async function changedByOthers(
  store: CheckpointStoreApi,
  sessionId: string,
  changes: ReadonlyArray<{ path: string; blob: string }>,
  since: number,
  until = Number.MAX_SAFE_INTEGER,
): Promise<Set<string>> {
  const found = new Set<string>();
  if (!changes.length) return found;
  // No other session has a checkpoint since `since`: none made anything in the range (without listing every checkpoint).
  const latest = await store.latestTimes?.();
  if (latest && ![...latest].some(([id, at]) => id !== sessionId && at >= since)) return found;
  const bySession = new Map<string, Checkpoint[]>();
  for (const checkpoint of await store.listAll()) {
    const list = bySession.get(checkpoint.session) ?? [];
    list.push(checkpoint);
    bySession.set(checkpoint.session, list);
  }
  const others = [...bySession].filter(([id, list]) => id !== sessionId && list.some((c) => c.at >= since && c.at <= until));
  if (!others.length) return found;
  const theirs = (await Promise.all(others.map(([, list]) => madeBy(store, list, since, until)))).flat();
  const mine = await madeBy(store, bySession.get(sessionId) ?? [], since, until);
  for (const change of changes) {
    const same = (m: Made) => m.path === change.path && m.blob === change.blob;
    const them = theirs.filter(same);
    if (!them.length) continue;
    // The stretch that began last made it: one that began earlier and still shows it took it in as it ended.
    const latest = (list: Made[]) => list.reduce((x, y) => Math.max(x, y.start), -1);
    if (latest(them) > latest(mine.filter(same))) found.add(change.path);
  }
  return found;
}
