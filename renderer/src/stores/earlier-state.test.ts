import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { compactEarlierState } from '#protocol/helpers/earlier-state';
import { PAGED_EVENT_TYPES } from '#protocol/helpers/paging';
import { agentsSlice } from './agents';
import { requestsSlice } from './approvals';
import { checkpointsSlice } from './checkpoints';
import { goalSlice } from './goal';
import { historySlice } from './history';
import { meterSlice } from './meter';
import { modesSlice } from './modes';
import { type SessionSlice, reduce } from './session-slice';
import { todoSlice } from './todo';

/** What a window's state domains hold after these events (the ones applyEarlierState feeds). */
function stateOf(events: readonly SessionEvent[]) {
  const run = <S>(slice: SessionSlice<S>) => reduce(slice, slice.empty, events);
  return {
    modes: run(modesSlice),
    todo: run(todoSlice),
    goal: run(goalSlice),
    history: run(historySlice),
    checkpoints: run(checkpointsSlice),
    meter: run(meterSlice),
    agents: run(agentsSlice),
    requests: run(requestsSlice),
  };
}

/** Same state, including the order of keys (the meter lists models, the agents' cards appear, in that order). */
function expectSameState(compact: readonly SessionEvent[], full: readonly SessionEvent[]) {
  const a = stateOf(compact);
  const b = stateOf(full);
  expect(a).toEqual(b);
  expect(Object.keys(a.meter.byModel)).toEqual(Object.keys(b.meter.byModel));
  expect(Object.keys(a.agents.swarms)).toEqual(Object.keys(b.agents.swarms));
}

/** A small deterministic PRNG (tests must not depend on Math.random). */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const goal = (id: string, status: 'active' | 'paused' | 'complete') => ({
  id,
  objective: `Objective ${id}`,
  status,
  budget: {},
  used: { turns: 0, tokens: 0, timeMs: 0 },
  createdAt: 0,
  updatedAt: 0,
});
const progress = (done: number) => ({ total: 4, queued: 4 - done, running: 0, completed: done, failed: 0, aborted: 0, concurrency: 2 });
const rewind = (id: string, turnId: string) => ({
  rewindId: id,
  scope: 'all',
  turnId,
  index: 0,
  restored: [],
  removed: [],
  broughtBack: [],
  keptOutside: [],
  problems: [],
  notCaptured: [],
  undoneTurns: [turnId],
});

/**
 * One generator of state events for both tests: `turns` turns, each a prompt, one or two steps of usage
 * from two models and (with `measure`) a context measurement, sometimes todo lists, modes, goals, compactions, undo and
 * redo, rewinds, approvals, questions, reviews, sub-agents and swarms. `pick` decides what happens.
 */
function session(turns: number, pick: () => number, often = 1, measure = 0.9): SessionEvent[] {
  const events: SessionEvent[] = [];
  let seq = 0;
  const add = (type: SessionEvent['type'], fields: Record<string, unknown>) =>
    events.push({ type, sessionId: 's', seq: ++seq, at: seq * 1000, ...fields } as unknown as SessionEvent);
  const chance = (p: number) => pick() < p * often;
  const some = (n: number) => Math.floor(pick() * n);
  for (let t = 1; t <= turns; t++) {
    const turnId = `t${t}`;
    add('turn.started', { turnId, text: `Question ${t}: ${'please look at this '.repeat(8)}`, attachments: [], origin: 'user' });
    if (chance(0.05)) add('rewind.undone', { rewindId: `r${some(t)}`, scope: 'all', problems: [] });
    for (let step = 1; step <= 1 + some(2); step++) {
      const model = chance(0.02) ? undefined : chance(0.3) ? 'model-b' : 'model-a';
      add('usage', {
        turnId,
        step: { inputTokens: 1000 + some(500), outputTokens: 100 + some(50), ...(chance(0.5) ? { cachedTokens: some(900) } : {}) },
        total: { inputTokens: t * 1000, outputTokens: t * 100 },
        ...(model ? { model } : {}),
      });
      if (pick() < measure)
        add('context.measured', {
          turnId,
          tokens: 5000 + t,
          contextWindow: chance(0.5) ? 200_000 : 128_000,
          compactAt: 0.85,
          breakdown: { system: 1, tools: 2, messages: 3 },
        });
    }
    if (chance(0.15)) add('todo.updated', { items: [{ title: `Step ${t}`, status: 'in_progress' }] });
    if (chance(0.02)) add('permission.mode.changed', { mode: ['ask', 'accept-edits', 'yolo'][some(3)], previous: 'ask' });
    if (chance(0.02)) add('plan.mode.changed', { plan: { active: chance(0.5) } });
    if (chance(0.01)) add('goal.updated', { goal: goal(`g${t}`, chance(0.7) ? 'active' : 'paused') });
    if (chance(0.02)) {
      const compactionId = `c${t}`;
      add('compaction.started', { compactionId, trigger: 'auto', turnId, tokensBefore: 90_000, contextWindow: 128_000 });
      if (!chance(0.1))
        add('compaction.ended', {
          compactionId: chance(0.1) ? `c${some(t)}` : compactionId,
          trigger: 'auto',
          turnId,
          outcome: chance(0.8) ? 'compacted' : 'failed',
          note: 'Handoff note '.repeat(50),
          tokensBefore: 90_000,
          ...(chance(0.9) ? { tokensAfter: 9000 + t } : {}),
        });
    }
    // An end without its start (a log cut short, a compaction that began in an earlier process).
    if (chance(0.004)) add('compaction.ended', { compactionId: `x${t}`, trigger: 'manual', outcome: 'compacted', tokensBefore: 50_000, tokensAfter: 4000 });
    if (chance(0.02))
      add('approval.requested', {
        turnId: chance(0.8) ? turnId : `t${some(t) + 1}`,
        requestId: `a${some(20)}`,
        kind: 'tool',
        toolName: 'Bash',
        description: 'run',
        display: { kind: 'text', text: 'ls' },
        reason: 'ask',
      });
    if (chance(0.015)) add('approval.resolved', { requestId: `a${some(20)}`, outcome: 'approved' });
    if (chance(0.01)) add('question.asked', { turnId, requestId: `q${some(10)}`, callId: 'c', questions: [] });
    if (chance(0.008)) add('question.answered', { requestId: `q${some(10)}`, answers: {}, dismissed: false });
    if (chance(0.01))
      add('change.review.requested', {
        request: { requestId: `v${some(10)}`, turnId, callId: 'c', toolName: 'Edit', path: 'a.ts', created: false, hunks: [], added: 1, removed: 0 },
      });
    if (chance(0.008)) add('change.review.resolved', { requestId: `v${some(10)}`, accepted: [true] });
    if (chance(0.02))
      add('agent.updated', { agent: { agentId: `ag${some(5)}`, type: 'general', description: `agent at ${t}`, status: 'running', startedAt: t } });
    if (chance(0.01)) add('swarm.updated', { swarmId: `sw${some(3)}`, callId: 'c', description: `swarm at ${t}`, progress: progress(some(4)) });
    if (chance(0.02)) add('turn.changes', { turnId, files: [{ path: 'a.ts', status: 'modified', added: 1, removed: 1 }], more: 0 });
    // A turn whose end is missing (Deft stopped during it) leaves what it waited for pending.
    if (!chance(0.03)) add('turn.ended', { turnId, stopReason: 'end_turn', durationMs: 1000 });
    if (chance(0.03)) add('turns.undone', { turnIds: [turnId] });
    if (chance(0.01)) add('turns.redone', { turnIds: [`t${some(t) + 1}`] });
    if (chance(0.03)) add('rewind.done', { result: rewind(`r${t}`, turnId) });
  }
  return events;
}

describe('compactEarlierState (openSession `earlier`)', () => {
  it('a generated 5,000-message session: the domains reach exactly the state of every earlier state event, from a fixed handful of events', () => {
    const sizes: number[] = [];
    for (const turns of [500, 2500]) {
      const full = session(turns, random(19)).filter((e) => !PAGED_EVENT_TYPES.has(e.type));
      const compact = compactEarlierState(full);
      expectSameState(compact, full);
      // The session really exercises each domain.
      const state = stateOf(full);
      expect(Object.keys(state.meter.byModel).sort()).toEqual(['', 'model-a', 'model-b']);
      expect(state.goal.goal).not.toBeNull();
      expect(Object.keys(state.history.undone).length).toBeGreaterThan(10);
      expect(state.agents.order.length).toBe(5);
      expect(full.filter((e) => e.type === 'compaction.ended').length).toBeGreaterThanOrEqual(5);
      // Far smaller, and what does not depend on the undo count does not grow with the session.
      expect(JSON.stringify(compact).length).toBeLessThan(JSON.stringify(full).length / 20);
      sizes.push(compact.filter((e) => e.type !== 'turns.undone' && e.type !== 'turns.redone').length);
    }
    expect(sizes[1]).toBeLessThanOrEqual(sizes[0]! + 10);
    expect(sizes[1]).toBeLessThan(40);
  });

  it('random short sessions dense with every kind of state event reduce to the same state', () => {
    for (let run = 0; run < 400; run++) {
      const full = session(1 + (run % 30), random(run + 1), 8, run % 3 ? 0.3 : 0).filter((e) => !PAGED_EVENT_TYPES.has(e.type));
      expectSameState(compactEarlierState(full), full);
      if (run % 3 === 0) expect(full.some((e) => e.type === 'context.measured')).toBe(false);
      // Compacting what was compacted with more events after it (how a live session lets go of turns) too.
      const cut = Math.floor(full.length / 2);
      expectSameState(compactEarlierState([...compactEarlierState(full.slice(0, cut)), ...full.slice(cut)]), full);
    }
  });

  it('then the tail: the state after the compact `earlier` and the tail equals the state after every event', () => {
    const all = session(300, random(7), 3);
    const start = all.findIndex((e) => e.type === 'turn.started' && e.seq > all[all.length - 1]!.seq - 100);
    const earlier = all.slice(0, start).filter((e) => !PAGED_EVENT_TYPES.has(e.type));
    const tail = all.slice(start);
    expectSameState([...compactEarlierState(earlier), ...tail], [...earlier, ...tail]);
  });
});
