import { describe, expect, it } from 'vitest';
import type { SessionEvent, SessionEventType } from '#protocol';
import { agentsSlice } from './agents';
import { queueSlice } from './queue';
import { requestsSlice } from './approvals';
import { checkpointsSlice } from './checkpoints';
import { goalSlice } from './goal';
import { historySlice } from './history';
import { meterSlice } from './meter';
import { modesSlice } from './modes';
import { reduce } from './session-slice';
import { eventsOf } from './test-events';
import { todoSlice } from './todo';
import { type Transcript, emptyTranscript, transcriptSlice } from './transcript';

const replay = (events: SessionEvent[], from: Transcript = emptyTranscript) => reduce(transcriptSlice, from, events);
const rows = (t: Transcript) => t.items.map((i) => (i.kind === 'notice' ? `notice: ${i.text}` : `${i.kind} ${i.id}`));
const diff = (path: string, added: number, removed: number) => ({ kind: 'diff' as const, path, before: '', after: '', added, removed });

describe('transcript: a conversation from its events', () => {
  it('shows the prompt, one answer per step built from its deltas, and knows which turn runs', () => {
    const ev = eventsOf();
    const t = replay([
      ev('turn.started', { turnId: 't1', text: 'Hello', attachments: [], origin: 'user' }),
      ev('step.started', { turnId: 't1', step: 0 }),
      ev('thinking.delta', { turnId: 't1', step: 0, text: 'Let me ' }),
      ev('thinking.delta', { turnId: 't1', step: 0, text: 'think.' }),
      ev('assistant.delta', { turnId: 't1', step: 0, text: 'Hi ' }),
      ev('assistant.delta', { turnId: 't1', step: 0, text: 'there.' }),
    ]);
    expect(t.runningTurn).toBe('t1');
    expect(t.items).toEqual([
      { kind: 'user', id: 't1:u', turnId: 't1', text: 'Hello', attachments: [], mentions: [], at: 1000, seq: 1, origin: 'user' },
      // Reasoning from its first delta to the answer's first: "Thought for 2 s".
      {
        kind: 'assistant',
        id: 't1:a0',
        turnId: 't1',
        step: 0,
        text: 'Hi there.',
        thinking: 'Let me think.',
        streaming: true,
        at: 3000,
        thinkingFrom: 3000,
        thinkingUntil: 5000,
      },
    ]);
    const ended = replay(
      [ev('step.ended', { turnId: 't1', step: 0, finishReason: 'end_turn' }), ev('turn.ended', { turnId: 't1', stopReason: 'end_turn', durationMs: 5 })],
      t,
    );
    expect(ended.items[1]).toMatchObject({ streaming: false });
    expect(ended.runningTurn).toBeNull();
    expect(ended.lastError).toBeNull();
  });

  it('replaces the retry notice with the final error when retries give up', () => {
    const ev = eventsOf();
    const error = { code: 'provider_rate_limit' as const, message: 'Rate limited.' };
    const t = replay([
      ev('turn.started', { turnId: 't', text: 'q', attachments: [], origin: 'user' }),
      ev('step.retrying', { turnId: 't', step: 0, attempt: 1, maxAttempts: 2, delayMs: 1_000, error }),
      ev('turn.ended', { turnId: 't', stopReason: 'error', error: { ...error, message: 'Rate limited. Gave up after 2 attempts.' }, durationMs: 1 }),
    ]);
    expect(rows(t)).toEqual(['user t:u', 'notice: Rate limited. Gave up after 2 attempts.']);
  });

  it('drops a step’s partial answer when it is retried, keeping one retry notice', () => {
    const ev = eventsOf();
    const error = { code: 'provider_rate_limit' as const, message: 'Rate limited.' };
    const t = replay([
      ev('turn.started', { turnId: 't', text: 'q', attachments: [], origin: 'user' }),
      ev('assistant.delta', { turnId: 't', step: 0, text: 'partial' }),
      ev('step.retrying', { turnId: 't', step: 0, attempt: 1, maxAttempts: 5, delayMs: 1_400, error }),
      ev('step.retrying', { turnId: 't', step: 0, attempt: 2, maxAttempts: 5, delayMs: 2_600, error }),
      ev('assistant.delta', { turnId: 't', step: 0, text: 'whole' }),
    ]);
    expect(rows(t)).toEqual(['user t:u', 'notice: Rate limited.', 'assistant t:a0']);
    // The second retry's event is the 4th (at 4 s): the next attempt, the 3rd, comes 2.6 s later.
    expect(t.items[1]).toMatchObject({ level: 'warning', code: 'provider_rate_limit', retry: { at: 6_600, attempt: 3, maxAttempts: 5 } });
    expect(t.items[2]).toMatchObject({ text: 'whole' });
  });

  it('follows a tool call: live output (appended, capped; status lines replace it), then its result', () => {
    const ev = eventsOf();
    const started = replay([
      ev('turn.started', { turnId: 't', text: 'q', attachments: [], origin: 'user' }),
      ev('tool.call.started', {
        turnId: 't',
        step: 0,
        callId: 'c1',
        name: 'Bash',
        args: { command: 'ls' },
        description: 'List',
        display: { kind: 'command', command: 'ls' },
      }),
      ev('tool.call.progress', { turnId: 't', callId: 'c1', kind: 'stdout', text: 'a\n' }),
      ev('tool.call.progress', { turnId: 't', callId: 'c1', kind: 'stderr', text: 'b\n' }),
    ]);
    expect(started.items[1]).toMatchObject({ kind: 'tool', status: 'running', progress: 'a\nb\n', name: 'Bash' });
    const status = replay([ev('tool.call.progress', { turnId: 't', callId: 'c1', kind: 'status', text: 'Waiting' })], started);
    expect(status.items[1]).toMatchObject({ progress: 'Waiting' });
    const long = replay([ev('tool.call.progress', { turnId: 't', callId: 'c1', kind: 'output', text: 'x'.repeat(70_000) })], status);
    expect((long.items[1] as { progress: string }).progress).toHaveLength(64_000);
    const done = replay([ev('tool.call.result', { turnId: 't', callId: 'c1', name: 'Bash', isError: true, output: 'exit 1', durationMs: 12 })], long);
    expect(done.items[1]).toMatchObject({ status: 'error', result: { output: 'exit 1', isError: true, durationMs: 12 } });
    // Progress for a call the transcript does not show changes nothing.
    const unknown = replay([ev('tool.call.progress', { turnId: 't', callId: 'nope', kind: 'stdout', text: 'x' })], done);
    expect(unknown.items).toBe(done.items);
  });

  it('ends a turn with its changed files, then a notice saying why it stopped', () => {
    const ev = eventsOf();
    const call = (callId: string) =>
      ev('tool.call.started', { turnId: 't', step: 0, callId, name: 'Edit', args: {}, description: 'Edit', display: { kind: 'generic', summary: 'e' } });
    const t = replay([
      ev('turn.started', { turnId: 't', text: 'q', attachments: [], origin: 'user' }),
      call('c1'),
      ev('tool.call.result', { turnId: 't', callId: 'c1', name: 'Edit', isError: false, output: 'ok', display: diff('a.ts', 2, 1), durationMs: 1 }),
      ev('assistant.delta', { turnId: 't', step: 1, text: 'cut' }),
      ev('turn.ended', { turnId: 't', stopReason: 'cancelled', durationMs: 1 }),
    ]);
    expect(rows(t)).toEqual(['user t:u', 'tool c1', 'assistant t:a1', 'changes t:changes', 'notice: Stopped.']);
    expect(t.items[2]).toMatchObject({ streaming: false });
    expect(t.items[3]).toMatchObject({ files: [{ path: 'a.ts', added: 2, removed: 1, callIds: ['c1'] }] });
  });

  it.each([
    ['max_steps', 'warning', 'Stopped at the step limit before the model finished.'],
    ['max_tokens', 'warning', 'The model hit its output limit; the answer may be cut short.'],
  ] as const)('says when a turn stops at %s', (stopReason, level, text) => {
    const ev = eventsOf();
    const t = replay([
      ev('turn.started', { turnId: 't', text: 'q', attachments: [], origin: 'user' }),
      ev('turn.ended', { turnId: 't', stopReason, durationMs: 1 }),
    ]);
    expect(t.items.at(-1)).toEqual({ kind: 'notice', id: 't:end', turnId: 't', level, text });
  });

  it('keeps the error that ended a turn for the banner until the next turn starts', () => {
    const ev = eventsOf();
    const error = { code: 'provider_auth' as const, message: 'The key was rejected.' };
    const failed = replay([
      ev('turn.started', { turnId: 't1', text: 'q', attachments: [], origin: 'user' }),
      ev('turn.ended', { turnId: 't1', stopReason: 'error', error, durationMs: 1 }),
    ]);
    expect(failed.lastError).toEqual(error);
    expect(failed.items.at(-1)).toMatchObject({ kind: 'notice', level: 'error', text: 'The key was rejected.', code: 'provider_auth' });
    const next = replay([ev('turn.started', { turnId: 't2', text: 'again', attachments: [], origin: 'user' })], failed);
    expect(next.lastError).toBeNull();
    // A turn that ends while another runs (it cannot here, but the state must not lose the running one).
    const other = replay([ev('turn.ended', { turnId: 't1', stopReason: 'end_turn', durationMs: 1 })], next);
    expect(other.runningTurn).toBe('t2');
  });

  it('keeps the session total of token usage and shows session errors', () => {
    const ev = eventsOf();
    const t = replay([
      ev('usage', { turnId: 't', step: { inputTokens: 10, outputTokens: 2 }, total: { inputTokens: 30, outputTokens: 6 } }),
      ev('error', { code: 'internal', message: 'The log could not be written.' }),
    ]);
    expect(t.usage).toEqual({ inputTokens: 30, outputTokens: 6 });
    expect(t.items).toEqual([{ kind: 'notice', id: 'err2', level: 'error', text: 'The log could not be written.', code: 'internal' }]);
  });

  it('adds a skill card after the prompt that ran it', () => {
    const ev = eventsOf();
    const state = replay([
      ev('turn.started', { turnId: 't', text: '/review src', attachments: [], origin: 'skill' }),
      ev('skill.activated', {
        turnId: 't',
        name: 'review',
        args: 'src',
        trigger: 'user',
        source: 'builtin',
        dir: '/app/skills/review',
        content: 'Review src.',
      }),
    ]);
    expect(state.items.map((i) => i.kind)).toEqual(['user', 'skill']);
    expect(state.items[1]).toEqual({
      kind: 'skill',
      id: 'skill2',
      turnId: 't',
      name: 'review',
      args: 'src',
      trigger: 'user',
      source: 'builtin',
      content: 'Review src.',
    });
  });

  it('returns the very same state for events it does not show', () => {
    const ev = eventsOf();
    const events = [
      ev('todo.updated', { items: [] }),
      ev('goal.updated', { goal: null }),
      ev('approval.resolved', { requestId: 'r', outcome: 'approved' }),
      ev('step.started', { turnId: 't', step: 0 }),
    ];
    expect(replay(events)).toBe(emptyTranscript);
  });
});

describe('session events and the domains that own them', () => {
  // Every session event type, so a new one does not compile until it is placed here.
  const every = {
    'session.updated': true,
    'turn.started': true,
    'turn.ended': true,
    'step.started': true,
    'step.retrying': true,
    'step.ended': true,
    'assistant.delta': true,
    'thinking.delta': true,
    'tool.call.started': true,
    'tool.call.progress': true,
    'tool.call.result': true,
    usage: true,
    error: true,
    'skill.activated': true,
    'permission.mode.changed': true,
    'approval.requested': true,
    'approval.resolved': true,
    'question.asked': true,
    'question.answered': true,
    'plan.mode.changed': true,
    'todo.updated': true,
    'goal.updated': true,
    'compaction.started': true,
    'compaction.ended': true,
    'turns.undone': true,
    'turns.redone': true,
    'turn.changes': true,
    'rewind.done': true,
    'rewind.undone': true,
    'change.review.requested': true,
    'change.review.resolved': true,
    'context.measured': true,
    'hook.ran': true,
    'agent.updated': true,
    'swarm.updated': true,
    'prompt.queued': true,
    'prompt.queue.edited': true,
    'prompt.queue.removed': true,
    'steer.delivered': true,
    'step.note': true,
  } satisfies Record<SessionEventType, true>;
  // The session list follows session.updated (bind.ts); a step's start shows nothing until its first delta.
  const shownNowhere = new Set<string>(['session.updated', 'step.started']);

  it('has an owner for every event the window shows', () => {
    const owned = new Set(
      [transcriptSlice, requestsSlice, modesSlice, todoSlice, goalSlice, historySlice, checkpointsSlice, meterSlice, agentsSlice, queueSlice].flatMap((slice) =>
        Object.keys(slice.on),
      ),
    );
    const orphans = Object.keys(every).filter((type) => !owned.has(type) && !shownNowhere.has(type));
    expect(orphans).toEqual([]);
    expect([...shownNowhere].filter((type) => owned.has(type))).toEqual([]);
  });
});

describe('transcript: replaying a long session', () => {
  /** A realistic session: prompts, tool calls with diffs, streamed answers, changed files, notices. */
  function session(turns: number): SessionEvent[] {
    const ev = eventsOf();
    const events: SessionEvent[] = [];
    for (let t = 0; t < turns; t++) {
      const turnId = `t${t}`;
      events.push(ev('turn.started', { turnId, text: `q${t}`, attachments: [], origin: 'user' }));
      events.push(ev('thinking.delta', { turnId, step: 0, text: 'hm' }));
      events.push(ev('assistant.delta', { turnId, step: 0, text: 'Let me edit.' }));
      events.push(ev('step.ended', { turnId, step: 0, finishReason: 'tool_use' }));
      events.push(
        ev('tool.call.started', { turnId, step: 0, callId: `c${t}`, name: 'Edit', args: {}, description: 'Edit', display: { kind: 'generic', summary: 'e' } }),
      );
      events.push(ev('tool.call.progress', { turnId, callId: `c${t}`, kind: 'stdout', text: 'x' }));
      events.push(
        ev('tool.call.result', { turnId, callId: `c${t}`, name: 'Edit', isError: false, output: 'ok', display: diff(`f${t % 7}.ts`, 2, 1), durationMs: 1 }),
      );
      if (t % 5 === 1)
        events.push(
          ev('step.retrying', { turnId, step: 1, attempt: 1, maxAttempts: 3, delayMs: 1000, error: { code: 'provider_rate_limit', message: 'Slow down.' } }),
        );
      for (const piece of ['Done', ' with ', `part ${t}.`]) events.push(ev('assistant.delta', { turnId, step: 1, text: piece }));
      if (t % 7 === 3) events.push(ev('plan.mode.changed', { plan: { active: true } }));
      events.push(ev('turn.ended', { turnId, stopReason: t % 4 === 2 ? 'cancelled' : 'end_turn', durationMs: 1 }));
      if (t % 3 === 0) events.push(ev('turn.changes', { turnId, files: [{ path: `f${t % 7}.ts`, status: 'modified', added: 3, removed: 1 }], more: 0 }));
    }
    return events;
  }

  it('ends the same whether the events come in one batch, one at a time or in frames, and leaves earlier states as they were', () => {
    const events = session(40);
    const whole = replay(events);
    let single = emptyTranscript;
    const seen: Array<{ state: Transcript; ids: string[] }> = [];
    for (const event of events) {
      single = replay([event], single);
      seen.push({ state: single, ids: single.items.map((i) => i.id) });
    }
    let framed = emptyTranscript;
    for (let i = 0; i < events.length; i += 9) framed = replay(events.slice(i, i + 9), framed);
    expect(single).toEqual(whole);
    expect(framed).toEqual(whole);
    // Every state handed out stayed as it was when later events were applied.
    for (const { state, ids } of seen) expect(state.items.map((i) => i.id)).toEqual(ids);
    expect(rows(whole).slice(0, 7)).toEqual([
      'user t0:u',
      'assistant t0:a0',
      'tool c0',
      'assistant t0:a1',
      'changes t0:changes',
      'user t1:u',
      'assistant t1:a0',
    ]);
    expect(whole.items.filter((i) => i.kind === 'assistant' && i.streaming)).toEqual([]);
  });
});
