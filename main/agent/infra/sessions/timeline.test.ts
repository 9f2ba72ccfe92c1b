import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '#contract/model';
import { scanLog } from './log-scan';
import type { LogRecord } from './records';
import { Timeline } from './timeline';

const prompt = (turnId: string, content = turnId): ModelMessage => ({ role: 'user', content, turnId });
const answer = (content: string, callIds: string[] = []): ModelMessage => ({
  role: 'assistant',
  content,
  ...(callIds.length ? { toolCalls: callIds.map((id) => ({ id, name: 'Echo', arguments: '{}' })) } : {}),
});

/** Apply records live, and replay the same records from a log: both must agree. */
function both(records: LogRecord[]): { live: Timeline; replayed: Timeline; problems: string[] } {
  const live = new Timeline();
  for (const r of records) {
    if (r.r === 'context') live.append(r.m);
    else if (r.r === 'state') live.set(r.key, r.value);
    else if (r.r === 'compaction') live.compact(r.context);
    else if (r.r === 'undo') live.undo(r.turnIds);
  }
  const replay = scanLog(Buffer.from(records.map((r) => JSON.stringify(r)).join('\n') + '\n'));
  return { live, replayed: replay.timeline, problems: replay.problems };
}

describe('Timeline: turns, compaction and undo', () => {
  it("turn marks made while the state does not change share one copy of it (a long session's thousands of turns); a change gives the next its own", () => {
    const t = new Timeline();
    t.set('mode', 'ask');
    for (const id of ['t1', 't2', 't3']) {
      t.append(prompt(id));
      t.append(answer(`answer ${id}`));
    }
    t.set('mode', 'yolo');
    t.append(prompt('t4'));
    t.set('todo', ['a']);
    t.append(prompt('t5'));
    const [m1, m2, m3, m4, m5] = t.marks.map((m) => m.state);
    expect(m2).toBe(m1);
    expect(m3).toBe(m1);
    expect([...m1!]).toEqual([['mode', 'ask']]);
    expect([...m4!]).toEqual([['mode', 'yolo']]);
    expect([...m5!]).toEqual([
      ['mode', 'yolo'],
      ['todo', ['a']],
    ]);
    // Undone, the state before the first undone turn is given back as it was then.
    expect([...t.undo(['t4', 't5'])!.state]).toEqual([['mode', 'yolo']]);
    t.set('mode', 'plan');
    expect([...t.marks.at(-1)!.state]).toEqual([['mode', 'ask']]);
  });

  it('marks each turn at its prompt with the state before it; undo drops the last turns and gives that state back', () => {
    const t = new Timeline();
    t.set('todo', ['a']);
    t.append(prompt('t1'));
    t.append({ role: 'user', content: '<notification>not a turn</notification>' });
    t.append(answer('one', ['c1']));
    t.set('todo', ['a', 'b']);
    t.append(prompt('t2'));
    t.append(answer('two'));
    t.set('todo', ['c']);
    t.append(prompt('t3'));
    expect(t.marks.map((m) => [m.turnId, m.index])).toEqual([
      ['t1', 0],
      ['t2', 3],
      ['t3', 5],
    ]);
    const marks = t.lastTurns(2);
    expect(Array.isArray(marks) && marks.map((m) => m.turnId)).toEqual(['t2', 't3']);
    const first = t.undo(['t2', 't3'])!;
    expect(first.state.get('todo')).toEqual(['a', 'b']);
    expect(t.context.map((m) => m.content)).toEqual(['t1', '<notification>not a turn</notification>', 'one']);
    expect(t.marks.map((m) => m.turnId)).toEqual(['t1']);
    // Only the last turns, in order.
    expect(t.undo(['t2'])).toBeNull();
    expect(t.callIds).toEqual(new Set(['c1']));
  });

  it('says why an undo cannot happen', () => {
    const t = new Timeline();
    expect(t.lastTurns(1)).toBe('There is nothing to undo: no turn has run in this session yet.');
    t.append(prompt('t1'));
    expect(t.lastTurns(2)).toBe('Only 1 turn can be undone. Use /undo 1.');
    expect(t.lastTurns(0)).toMatch(/whole number/);
    t.compact([prompt('t1'), { role: 'user', content: 'note' }]);
    expect(t.marks).toEqual([]);
    expect(t.lastTurns(1)).toMatch(/^Nothing can be undone since the conversation was compacted/);
    t.append(prompt('t2'));
    t.append(prompt('t3'));
    expect(t.lastTurns(3)).toBe('Only the last 2 turns can be undone: undo cannot go back past the compaction before them. Use /undo 2.');
  });

  it('replays compaction and undo records to exactly the live history, with call ids kept from before the compaction', () => {
    const records: LogRecord[] = [
      { r: 'header', version: 1, sessionId: 's', workspace: '/w', createdAt: 0 },
      { r: 'context', m: prompt('t1', 'first') },
      { r: 'context', m: answer('', ['call_0']) },
      { r: 'context', m: { role: 'tool', toolCallId: 'call_0', toolName: 'Echo', content: 'ok' } },
      { r: 'state', key: 'todo', value: ['x'] },
      { r: 'compaction', id: 'compact-1', context: [prompt('t1', 'first'), { role: 'user', content: 'handoff' }] },
      { r: 'context', m: prompt('t2', 'second') },
      { r: 'context', m: answer('two') },
      { r: 'state', key: 'todo', value: ['y'] },
      { r: 'context', m: prompt('t3', 'third') },
      { r: 'undo', turnIds: ['t3'] },
      { r: 'state', key: 'todo', value: ['y'] },
    ];
    const { live, replayed, problems } = both(records);
    expect(problems).toEqual([]);
    expect(replayed.context).toEqual(live.context);
    expect(replayed.context.map((m) => m.content)).toEqual(['first', 'handoff', 'second', 'two']);
    expect(replayed.marks.map((m) => m.turnId)).toEqual(['t2']);
    expect(replayed.marks[0]!.state.get('todo')).toEqual(['x']);
    expect(replayed.compactions).toBe(1);
    expect(replayed.callIds.has('call_0')).toBe(true);
  });

  it('reports an undo or compaction record that does not fit, and keeps going', () => {
    const replay = scanLog(
      Buffer.from(
        [
          { r: 'context', m: prompt('t1') },
          { r: 'undo', turnIds: ['t9'] },
          { r: 'compaction', id: 'c', context: 'oops' },
          { r: 'context', m: prompt('t2') },
        ]
          .map((r) => JSON.stringify(r))
          .join('\n') + '\n',
      ),
    );
    expect(replay.problems).toEqual([
      'Line 2 of the session log holds an undo that does not match the turns before it and was skipped.',
      'Line 3 of the session log holds a malformed compaction and was skipped; the model reads the history from before it.',
    ]);
    expect(replay.timeline.context.map((m) => m.content)).toEqual(['t1', 't2']);
  });

  it('freezes every message it holds, so nothing can rewrite the history the next request starts with', () => {
    const timeline = new Timeline();
    const tool: ModelMessage = { role: 'tool', toolCallId: 'c', toolName: 'Read', content: [{ type: 'text', text: 'x' }], announced: { todo: 'A' } };
    timeline.append(answer('', ['c']));
    timeline.append(tool);
    const [assistant, result] = timeline.context as [Extract<ModelMessage, { role: 'assistant' }>, Extract<ModelMessage, { role: 'tool' }>];
    expect(() => {
      (assistant.toolCalls![0] as { arguments: string }).arguments = '{"x":1}';
    }).toThrow(TypeError);
    expect(() => {
      (result.content as Array<{ text: string }>)[0]!.text = 'y';
    }).toThrow(TypeError);
    expect(() => {
      result.announced!.todo = 'B';
    }).toThrow(TypeError);
    timeline.compact([prompt('t1')]);
    expect(Object.isFrozen(timeline.context[0])).toBe(true);
  });
});
