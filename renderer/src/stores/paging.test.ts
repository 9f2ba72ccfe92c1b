import { beforeEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { PAGED_EVENT_TYPES } from '#protocol/helpers/paging';
import { agentsSlice } from './agents';
import { checkpointsSlice } from './checkpoints';
import { goalSlice } from './goal';
import { historySlice } from './history';
import { meterSlice } from './meter';
import { modesSlice, useModes } from './modes';
import { KEEP_TURNS, letGoOfEarlierTurns, useSessions } from './sessions';
import { eventsOf } from './test-events';
import { todoSlice, useTodo } from './todo';
import { prependEarlierPage, useTranscript } from './transcript';

const sessions = () => useSessions.getState();
const rows = () => useTranscript.getState().items.map((i) => `${i.kind}:${'text' in i ? i.text : i.id}`);

/** Turns as a host records them: prompt, a tool call, an answer, sometimes a mode change or a todo list. */
function history(turns: number): { events: SessionEvent[]; starts: number[] } {
  const ev = eventsOf('p');
  const events: SessionEvent[] = [];
  const starts: number[] = [];
  for (let n = 1; n <= turns; n++) {
    const turnId = `t${n}`;
    const first = ev('turn.started', { turnId, text: `question ${n}`, attachments: [], origin: 'user' });
    starts.push(first.seq);
    events.push(
      first,
      ev('tool.call.started', { turnId, step: 1, callId: `c${n}`, name: 'Read', args: {}, description: 'Read', display: { kind: 'generic', summary: 'Read' } }),
    );
    events.push(ev('tool.call.result', { turnId, callId: `c${n}`, name: 'Read', isError: false, output: 'x', durationMs: 1 }));
    if (n % 5 === 0) events.push(ev('permission.mode.changed', { mode: n % 10 === 0 ? 'ask' : 'yolo', previous: 'ask' }));
    if (n % 4 === 0) events.push(ev('todo.updated', { items: [{ title: `todo ${n}`, status: 'pending' }] }));
    events.push(ev('assistant.delta', { turnId, step: 1, text: `answer ${n}` }), ev('step.ended', { turnId, step: 1, finishReason: 'end_turn' }));
    events.push(ev('turn.ended', { turnId, stopReason: 'end_turn', durationMs: 1 }));
  }
  return { events, starts };
}

/** What a host would answer: the last `tail` turns, the cursor, and the state events before them. */
function hostOf(events: SessionEvent[], starts: number[], tail: number, pageTurns: number) {
  const from = starts[starts.length - tail]!;
  return {
    open: { events: events.filter((e) => e.seq >= from), before: from, earlier: events.filter((e) => e.seq < from && !PAGED_EVENT_TYPES.has(e.type)) },
    page(before: number) {
      const count = starts.filter((s) => s < before).length;
      const start = count > pageTurns ? starts[count - pageTurns]! : 0;
      return { events: events.filter((e) => e.seq >= start && e.seq < before), before: start > 0 && start > starts[0]! ? start : null };
    },
  };
}

beforeEach(() => {
  sessions().beginOpen('reset');
  sessions().removeSession('reset');
});

describe('a long session in the window', () => {
  it('opens at its tail with the state of every turn before it, and scrolling up puts each earlier page on top once, in order', () => {
    const { events, starts } = history(30);
    sessions().beginOpen('full');
    sessions().finishOpen('full', events, true, []);
    const full = rows();
    const fullModes = useModes.getState();
    const fullTodo = useTodo.getState();

    const host = hostOf(events, starts, 6, 10);
    sessions().beginOpen('p');
    sessions().finishOpen('p', host.open.events, true, [], host.open);
    expect(rows()).toEqual(full.slice(full.indexOf('user:question 25')));
    expect(useModes.getState()).toEqual(fullModes);
    expect(useTodo.getState()).toEqual(fullTodo);
    // While a turn streams, its live events come in between pages.
    const live = eventsOf('p', events.length + 1);
    sessions().apply([live('turn.started', { turnId: 'live', text: 'live question', attachments: [], origin: 'user' })]);
    let pages = 0;
    while (sessions().before !== null) {
      const before = sessions().before!;
      const page = host.page(before);
      expect(sessions().shownEarlier('p', before, page.before)).toBe(true);
      prependEarlierPage(page.events);
      // The same page arriving twice (a slow reply after a retry) is not applied again.
      expect(sessions().shownEarlier('p', before, page.before)).toBe(false);
      sessions().apply([live('assistant.delta', { turnId: 'live', step: 1, text: `${pages} ` })]);
      pages++;
    }
    expect(pages).toBe(3);
    expect(rows()).toEqual([...full, 'user:live question', 'assistant:0 1 2 ']);
    expect(useModes.getState()).toEqual(fullModes);
  });

  it('a window following a long live session lets go of the rows of its oldest turns, and scrolling up pages them back in order, each once', () => {
    const { events, starts } = history(70);
    sessions().beginOpen('full');
    sessions().finishOpen('full', events, true, []);
    const full = rows();

    sessions().beginOpen('p');
    sessions().finishOpen('p', [], true, []);
    // Turn by turn, as a live session grows; the window follows its end.
    for (let i = 0; i < starts.length; i++) {
      sessions().apply(events.filter((e) => e.seq >= starts[i]! && e.seq < (starts[i + 1] ?? Infinity)));
      letGoOfEarlierTurns();
    }
    const kept = rows();
    expect(kept.filter((r) => r.startsWith('user:')).length).toBeLessThanOrEqual(60);
    expect(kept).toEqual(full.slice(full.length - kept.length));
    expect(full.slice(0, full.length - kept.length).at(-1)).not.toMatch(/^user:/);
    const before = sessions().before!;
    expect(starts).toContain(before);
    // A turn streams while the user scrolls back up.
    const live = eventsOf('p', events.length + 1);
    sessions().apply([live('turn.started', { turnId: 'live', text: 'live question', attachments: [], origin: 'user' })]);
    const host = hostOf(events, starts, 70, 12);
    let pages = 0;
    while (sessions().before !== null) {
      const cursor = sessions().before!;
      const page = host.page(cursor);
      expect(sessions().shownEarlier('p', cursor, page.before)).toBe(true);
      prependEarlierPage(page.events);
      sessions().apply([live('assistant.delta', { turnId: 'live', step: 1, text: `${pages} ` })]);
      pages++;
    }
    expect(rows()).toEqual([...full, 'user:live question', 'assistant:' + Array.from({ length: pages }, (_, i) => `${i} `).join('')]);
  });

  it('keeps every row while the session has no more turns than the window keeps', () => {
    const { events, starts } = history(KEEP_TURNS + 5);
    sessions().beginOpen('p');
    sessions().finishOpen('p', events, true, []);
    const all = rows();
    letGoOfEarlierTurns();
    expect(rows()).toEqual(all);
    expect(sessions().before).toBeNull();
    expect(starts.length).toBe(KEEP_TURNS + 5);
  });

  it('a page for a session no longer open, or an earlier cursor, is dropped', () => {
    const { events, starts } = history(20);
    const host = hostOf(events, starts, 5, 5);
    sessions().beginOpen('p');
    sessions().finishOpen('p', host.open.events, true, [], host.open);
    const before = sessions().before!;
    sessions().beginOpen('other');
    expect(sessions().shownEarlier('p', before, null)).toBe(false);
  });

  it('the domains that take the state before the tail show no conversation rows, so none of them handles a paged event', () => {
    for (const slice of [agentsSlice, checkpointsSlice, goalSlice, historySlice, meterSlice, modesSlice, todoSlice]) {
      expect(Object.keys(slice.on).filter((type) => PAGED_EVENT_TYPES.has(type as SessionEvent['type']))).toEqual([]);
    }
  });
});
