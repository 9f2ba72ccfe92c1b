import { describe, expect, it } from 'vitest';
import type { SkillSummary } from '#protocol';
import { matchCommands, parseSlashCommand, slashCommands, slashQuery } from './slash';

function skill(name: string, source: SkillSummary['source'], command: string | undefined, description = `About ${name}`): SkillSummary {
  return {
    name,
    description,
    type: 'prompt',
    source,
    file: `/s/${name}/SKILL.md`,
    dir: `/s/${name}`,
    arguments: [],
    modelInvocable: true,
    isSubSkill: name.includes('.'),
    overrides: [],
    ...(command ? { command } : {}),
  };
}

const skills = [
  skill('deploy', 'workspace', 'skill:deploy', 'Ship the review app'),
  skill('review', 'builtin', 'review'),
  skill('release.notes', 'user', 'release.notes'),
  skill('glossary', 'workspace', undefined),
  skill('commit', 'builtin', 'commit'),
];
const commands = slashCommands(skills);

describe('slash commands', () => {
  it('offers runnable skills, built-ins first', () => {
    expect(commands.map((c) => c.command)).toEqual(['commit', 'review', 'release.notes', 'skill:deploy']);
  });

  it('opens the menu only while a single command word is typed', () => {
    expect(slashQuery('/')).toBe('');
    expect(slashQuery('/Rev')).toBe('rev');
    expect(slashQuery('/review src')).toBeNull();
    expect(slashQuery('hello /review')).toBeNull();
  });

  it('matches prefixes of commands and names before other matches', () => {
    expect(matchCommands(commands, 'dep').map((c) => c.command)).toEqual(['skill:deploy']);
    expect(matchCommands(commands, 'rev').map((c) => c.command)).toEqual(['review', 'skill:deploy']);
    expect(matchCommands(commands, 'skill:').map((c) => c.command)).toEqual(['skill:deploy']);
    expect(matchCommands(commands, '').length).toBe(4);
  });

  it('parses a command and its arguments; other text is an ordinary message', () => {
    expect(parseSlashCommand('/skill:deploy staging "fast mode"', commands)).toMatchObject({ skill: { name: 'deploy' }, args: 'staging "fast mode"' });
    expect(parseSlashCommand('/REVIEW', commands)).toMatchObject({ skill: { name: 'review' }, args: '' });
    expect(parseSlashCommand('/release.notes v2\nwith details', commands)).toMatchObject({ skill: { name: 'release.notes' }, args: 'v2\nwith details' });
    expect(parseSlashCommand('/deploy now', commands)).toMatchObject({ skill: { name: 'deploy' }, args: 'now' });
    expect(parseSlashCommand('/skill:review', commands)).toMatchObject({ skill: { name: 'review' } });
    expect(parseSlashCommand('/glossary', commands)).toBeNull();
    expect(parseSlashCommand('/etc/hosts is broken', commands)).toBeNull();
    expect(parseSlashCommand('please /review', commands)).toBeNull();
  });
});
