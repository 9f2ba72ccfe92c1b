import type { SessionEvent, SessionEventOf } from '../schemas/events';
import type { Usage } from '../schemas/session';

/**
 * The state events before a session's tail (openSession's `earlier`), reduced to what a window's state
 * domains need to reach the same state: the same todo list, modes, goal, usage by model, context fill,
 * compaction and undo state, pending rewind, reviews, approvals and sub-agent cards as from every event.
 * Its size no longer grows with the number of turns. Audit of what each domain reads in them
 * (renderer/src/stores):
 * - todo, permission mode, plan mode, goal, context.measured: each replaces the last, so only the last counts.
 * - usage: the meter sums it by model; the goal adds input + output tokens after the last goal.updated.
 *   Folded into one event per model before the last goal.updated and one per model after it.
 * - turn.started only ends an undoable rewind; turn.ended only drops a turn's pending requests and reviews;
 *   turn.changes only makes transcript rows (which come with the pages): none is sent. Instead a rewind is
 *   sent only if nothing after it ended it, and a request (approval, question, review) only if nothing
 *   after it (its answer, a newer request with its id, its turn's end) removed it.
 * - compactions: the history needs the last one started (and its end); the meter's context needs the
 *   first that set it when nothing was measured, and the last compacted end after the last measurement.
 * - turns.undone / turns.redone: all kept (the undone set, the meter's "stale"); they are few.
 * - agent and swarm cards: the last state of each, at the place of its first (their order is the order they appeared).
 * Types not listed are kept as they are.
 */
export function compactEarlierState(events: readonly SessionEvent[]): SessionEvent[] {
  const keep = new Array<SessionEvent | null>(events.length).fill(null);
  const lastOf = new Map<string, number>();
  events.forEach((event, index) => lastOf.set(event.type, index));
  const last = (type: SessionEvent['type']) => lastOf.get(type) ?? -1;

  for (const type of ['todo.updated', 'permission.mode.changed', 'plan.mode.changed', 'goal.updated', 'context.measured', 'compaction.started'] as const) {
    const index = last(type);
    if (index >= 0) keep[index] = events[index]!;
  }
  keepCompactions(events, keep, last('context.measured'), last('compaction.started'));
  keepRequests(events, keep);
  keepLatestCards(events, keep);

  const rewind = last('rewind.done');
  if (rewind >= 0 && !events.slice(rewind + 1).some((e) => e.type === 'turn.started' || e.type === 'rewind.undone')) keep[rewind] = events[rewind]!;

  const goal = last('goal.updated');
  const beforeGoal: Array<SessionEventOf<'usage'>> = [];
  const afterGoal: Array<SessionEventOf<'usage'>> = [];
  events.forEach((event, index) => {
    if (event.type === 'usage') (index < goal ? beforeGoal : afterGoal).push(event);
    else if (!HANDLED.has(event.type)) keep[index] = event;
  });

  const out: SessionEvent[] = [];
  keep.forEach((event, index) => {
    if (index === goal) out.push(...foldUsage(beforeGoal));
    if (event) out.push(event);
  });
  out.push(...foldUsage(afterGoal));
  return out;
}

/** The types compactEarlierState decides about; any other (turns.undone, turns.redone, a type added later) is kept. */
const HANDLED = new Set<SessionEvent['type']>([
  'turn.started',
  'turn.ended',
  'turn.changes',
  'usage',
  'todo.updated',
  'permission.mode.changed',
  'plan.mode.changed',
  'goal.updated',
  'context.measured',
  'compaction.started',
  'compaction.ended',
  'rewind.done',
  'rewind.undone',
  'approval.requested',
  'approval.resolved',
  'question.asked',
  'question.answered',
  'change.review.requested',
  'change.review.resolved',
  'agent.updated',
  'swarm.updated',
]);

/** Compaction events the history and the meter still read (see compactEarlierState). */
function keepCompactions(events: readonly SessionEvent[], keep: Array<SessionEvent | null>, measured: number, lastStarted: number): void {
  const compacted = (e: SessionEvent) => e.type === 'compaction.ended' && e.outcome === 'compacted' && e.tokensAfter !== undefined;
  const started = lastStarted >= 0 ? (events[lastStarted] as SessionEventOf<'compaction.started'>) : null;
  if (started) {
    const end = events.findIndex((e, i) => i > lastStarted && e.type === 'compaction.ended' && e.compactionId === started.compactionId);
    if (end >= 0) keep[end] = events[end]!;
  }
  // With nothing measured, the first compaction event that sets the context gives its window.
  const from = measured >= 0 ? measured : events.findIndex((e) => e.type === 'compaction.started' || compacted(e));
  if (from < 0) return;
  keep[from] = events[from]!;
  for (let i = events.length - 1; i > from; i--) {
    if (compacted(events[i]!)) {
      keep[i] = events[i]!;
      return;
    }
  }
}

/** Approvals, questions and reviews still pending at the end: nothing after them answered, replaced or ended them. */
function keepRequests(events: readonly SessionEvent[], keep: Array<SessionEvent | null>): void {
  const gone = new Set<string>();
  const ended = new Set<string>();
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.type === 'turn.ended') ended.add(event.turnId);
    else if (event.type === 'approval.resolved' || event.type === 'question.answered' || event.type === 'change.review.resolved')
      gone.add(`${event.type}:${event.requestId}`);
    else if (event.type === 'approval.requested' || event.type === 'question.asked' || event.type === 'change.review.requested') {
      const { kind, requestId, turnId } = requestOf(event);
      const key = `${kind}:${requestId}`;
      if (!gone.has(key) && !ended.has(turnId)) keep[i] = event;
      gone.add(key);
    }
  }
}

function requestOf(event: SessionEventOf<'approval.requested' | 'question.asked' | 'change.review.requested'>): {
  kind: string;
  requestId: string;
  turnId: string;
} {
  if (event.type === 'approval.requested') return { kind: 'approval.resolved', requestId: event.requestId, turnId: event.turnId };
  if (event.type === 'question.asked') return { kind: 'question.answered', requestId: event.requestId, turnId: event.turnId };
  return { kind: 'change.review.resolved', requestId: event.request.requestId, turnId: event.request.turnId };
}

/** Each sub-agent's and swarm's last card, where its first was. */
function keepLatestCards(events: readonly SessionEvent[], keep: Array<SessionEvent | null>): void {
  const first = new Map<string, number>();
  events.forEach((event, index) => {
    const key = event.type === 'agent.updated' ? `agent:${event.agent.agentId}` : event.type === 'swarm.updated' ? `swarm:${event.swarmId}` : null;
    if (key === null) return;
    const at = first.get(key) ?? index;
    first.set(key, at);
    keep[at] = event;
  });
}

/** One usage event per model (in the order the models first appear) with the summed step usage. */
function foldUsage(events: ReadonlyArray<SessionEventOf<'usage'>>): SessionEvent[] {
  const byModel = new Map<string, SessionEventOf<'usage'>>();
  for (const event of events) {
    const key = event.model ?? '';
    const before = byModel.get(key);
    byModel.set(key, before ? { ...event, model: before.model, step: addUsage(before.step, event.step) } : event);
  }
  return [...byModel.values()].map((event) => (event.model === undefined ? withoutModel(event) : event));
}

function withoutModel(event: SessionEventOf<'usage'>): SessionEventOf<'usage'> {
  const { model: _model, ...rest } = event;
  return rest;
}

function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedTokens: (a.cachedTokens ?? 0) + (b.cachedTokens ?? 0),
  };
}
