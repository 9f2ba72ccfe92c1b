import { describe, expect, it } from 'vitest';
import type { FactGroup } from '../prompt/facts';
import { subagentFacts } from './host';

const groups: FactGroup[] = [
  { source: 'core', facts: [{ key: 'date', text: 'today' }] },
  {
    source: 'approvals',
    facts: [
      { key: 'permissions.mode', text: 'ask' },
      { key: 'plan', text: 'plan on' },
    ],
  },
  { source: 'todo', facts: [{ key: 'todo', text: 'the parent’s list', mainAgentOnly: true }] },
  { source: 'goals', facts: [{ key: 'goal', text: 'the parent’s goal', mainAgentOnly: true }] },
  { source: 'skills', facts: [{ key: 'skills.listing', text: 'skills', forTool: 'Skill' }] },
  { source: 'shell', facts: [{ key: 'tasks', text: 'running tasks', mainAgentOnly: true }] },
];
const keys = (out: FactGroup[]) => out.flatMap((g) => g.facts.map((f) => f.key));

describe('what a sub-agent is told', () => {
  it("the parent's facts less its todo list, goal and background tasks; the skill listing only with the Skill tool", () => {
    expect(keys(subagentFacts(groups, () => true))).toEqual(['date', 'permissions.mode', 'plan', 'skills.listing']);
    expect(keys(subagentFacts(groups, (name) => name !== 'Skill'))).toEqual(['date', 'permissions.mode', 'plan']);
  });
});
