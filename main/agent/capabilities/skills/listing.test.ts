import { describe, expect, it } from 'vitest';
import { renderSkillListing } from './listing';
import type { SkillDefinition } from './types';

function skill(name: string, patch: Partial<SkillDefinition> = {}): SkillDefinition {
  return {
    name,
    displayName: name,
    description: `Does ${name}.`,
    type: 'prompt',
    disableModelInvocation: false,
    userInvocable: true,
    arguments: [],
    hasSubSkill: false,
    extra: {},
    isSubSkill: false,
    format: 'bundle',
    source: 'workspace',
    root: '/r',
    dir: `/r/${name}`,
    file: `/r/${name}/SKILL.md`,
    stamp: '1',
    ...patch,
  };
}

describe('renderSkillListing', () => {
  it('lists model-invocable skills grouped by source with description, when to use and path', () => {
    const text = renderSkillListing([
      skill('builtin-one', { source: 'builtin', file: '/app/skills/builtin-one/SKILL.md' }),
      skill('ws-one', { whenToUse: 'When the user asks\nfor ws.' }),
      skill('user-one', { source: 'user' }),
      skill('inline-one', { type: 'inline', source: 'extra' }),
    ]);
    const lines = text.split('\n');
    expect(lines[0]).toBe('# Skills');
    expect(lines[1]).toMatch(/^DISREGARD any earlier skill listings\. Current available skills/);
    expect(lines.slice(2).join('\n')).toBe(
      [
        '### Workspace',
        '- ws-one: Does ws-one.\n  When to use: When the user asks for ws.\n  Path: /r/ws-one/SKILL.md',
        '### User',
        '- user-one: Does user-one.\n  Path: /r/user-one/SKILL.md',
        '### Extra',
        '- inline-one: Does inline-one.\n  Path: /r/inline-one/SKILL.md',
        '### Built-in',
        '- builtin-one: Does builtin-one.\n  Path: /app/skills/builtin-one/SKILL.md',
      ].join('\n'),
    );
  });

  it('leaves out sub-skills, user-only, flow and reference skills; empty when nothing is left', () => {
    const hidden = [
      skill('sub', { isSubSkill: true, name: 'p.sub' }),
      skill('user-only', { disableModelInvocation: true }),
      skill('flow', { type: 'flow' }),
      skill('ref', { type: 'reference' }),
    ];
    expect(renderSkillListing(hidden)).toBe('');
    expect(renderSkillListing([...hidden, skill('ok')])).not.toMatch(/sub|user-only|flow|ref:/);
  });

  it('cuts descriptions at 250 characters', () => {
    const text = renderSkillListing([skill('long', { description: 'word '.repeat(100) })]);
    const line = text.split('\n').find((l) => l.startsWith('- long: '))!;
    expect(line.length - '- long: '.length).toBe(250);
    expect(line.endsWith('…')).toBe(true);
  });

  it('stays within its budget with a huge collection, naming the rest', () => {
    const many = Array.from({ length: 1000 }, (_, i) => skill(`skill-${String(i).padStart(4, '0')}`, { description: 'x'.repeat(240) }));
    const text = renderSkillListing(many);
    expect(text.length).toBeLessThan(52_000);
    expect(text).toContain('### More skills (names only');
    expect(text).toContain('skill-0999');
  });
});

describe('a skill that overrides a built-in (finding 13)', () => {
  it('is listed as overriding it, so the model is not misled', () => {
    const text = renderSkillListing([skill('commit', { source: 'workspace' })], (name) =>
      name === 'commit' ? [{ source: 'builtin', file: 'builtin://commit' }] : [],
    );
    expect(text).toContain('- commit: Does commit.');
    expect(text).toContain('Overrides the built-in skill "commit" (this workspace skill is used instead).');
    expect(renderSkillListing([skill('commit', { source: 'workspace' })])).not.toContain('Overrides');
  });
});

describe("a repository's skill that takes the name of the user's own (issue 27, finding 11)", () => {
  it('is marked in the listing with the skill it replaces, where it is, and which one is used', () => {
    const text = renderSkillListing([skill('deploy', { source: 'workspace' })], (name) =>
      name === 'deploy' ? [{ source: 'user', file: '/home/u/.deft/skills/deploy/SKILL.md' }] : [],
    );
    expect(text).toContain(
      'Overrides the user\'s own skill "deploy" at /home/u/.deft/skills/deploy/SKILL.md (this workspace skill is used instead; if the user means theirs, read it there).',
    );
  });
});
