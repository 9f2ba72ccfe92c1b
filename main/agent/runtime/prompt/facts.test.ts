import { describe, expect, it } from 'vitest';
import type { Fact } from '#contract/facts';
import type { Capability, SessionHandle } from '#contract/capability';
import type { ModelMessage } from '#contract/model';
import { announcedFacts, factReminder, factSource } from './facts';

const group = (source: string, ...facts: Fact[]) => ({ source, facts });
const said = (announced: Record<string, string | null>, content = 'x'): ModelMessage => ({ role: 'user', content, announced });

describe('facts', () => {
  it('reads what the history last said under each key, from reminders and tool results alike', () => {
    const history: ModelMessage[] = [
      said({ mode: 'ask', todo: 'A' }),
      { role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'TodoList', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'c', toolName: 'TodoList', content: 'ok', announced: { todo: 'B' } },
      said({ mode: null }),
    ];
    expect(announcedFacts(history)).toEqual(
      new Map([
        ['mode', null],
        ['todo', 'B'],
      ]),
    );
  });

  it('says each changed fact once, in one message, in source order; unchanged ones not at all', () => {
    const groups = [group('core', { key: 'date', text: 'D1' }), group('todo', { key: 'todo', text: 'T2' }), group('goal', { key: 'goal', text: 'G1' })];
    const history = [said({ date: 'D1', todo: 'T1' })];
    const reminder = factReminder(groups, history)!;
    expect(reminder).toEqual({ role: 'user', content: 'T2\nG1', announced: { todo: 'T2', goal: 'G1' } });
    expect(factReminder(groups, [...history, reminder])).toBeNull();
  });

  it('says that a fact stopped holding once (when it has words for it), and nothing for one never said', () => {
    const gone = { key: 'goal', text: null, gone: 'No goal any more.' };
    expect(factReminder([group('goal', gone)], [])).toBeNull();
    const reminder = factReminder([group('goal', gone)], [said({ goal: 'G1' })])!;
    expect(reminder).toEqual({ role: 'user', content: 'No goal any more.', announced: { goal: null } });
    expect(factReminder([group('goal', gone)], [said({ goal: 'G1' }), reminder])).toBeNull();
    // Without a `gone` text the model is not told (a task list that emptied: each task's end was notified).
    expect(factReminder([group('tasks', { key: 'tasks', text: null })], [said({ tasks: 'running: a' })])).toBeNull();
    // The same fact again later is said again, since the model last heard it was gone.
    expect(factReminder([group('goal', { key: 'goal', text: 'G1' })], [said({ goal: 'G1' }), reminder])).toMatchObject({ announced: { goal: 'G1' } });
  });

  it('keeps the first of two facts with one key, and a capability that fails loses only its own facts', async () => {
    const capabilities: Capability[] = [
      { name: 'a', facts: () => [{ key: 'k', text: 'from a' }] },
      { name: 'broken', facts: () => Promise.reject(new Error('boom')) },
      {
        name: 'b',
        facts: () => [
          { key: 'k', text: 'from b' },
          { key: 'other', text: 'O' },
        ],
      },
    ];
    const groups = await factSource(capabilities, () => [{ key: 'date', text: 'D' }])({} as SessionHandle);
    expect(groups.map((g) => g.source)).toEqual(['core', 'a', 'b']);
    expect(factReminder(groups, [])).toEqual({ role: 'user', content: 'D\nfrom a\nO', announced: { date: 'D', k: 'from a', other: 'O' } });
  });
});
