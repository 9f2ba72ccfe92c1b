import { describe, expect, it } from 'vitest';
import { parseSkillText } from './parser';
import { SkillParseError } from './types';

const bundle = (text: string) => parseSkillText(text, { format: 'bundle' });
const reason = (fn: () => unknown): string => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(SkillParseError);
    return (error as Error).message;
  }
  throw new Error('expected a SkillParseError');
};

describe('parseSkillText: SKILL.md bundles', () => {
  it('reads name, description and body; type defaults to prompt', () => {
    const skill = bundle('---\nname: Write-TUI\ndescription: Build terminal UIs.\n---\n\n# Steps\n1. Plan\n');
    expect(skill).toMatchObject({
      displayName: 'Write-TUI',
      description: 'Build terminal UIs.',
      type: 'prompt',
      body: '# Steps\n1. Plan',
      disableModelInvocation: false,
      userInvocable: true,
      hasSubSkill: false,
    });
  });

  it('accepts every spelling of when-to-use, disable-model-invocation, has-sub-skill, argument-hint and allowed-tools', () => {
    for (const [when, disable, sub, hint, tools] of [
      ['whenToUse', 'disableModelInvocation', 'hasSubSkill', 'argumentHint', 'allowedTools'],
      ['when-to-use', 'disable-model-invocation', 'has-sub-skill', 'argument-hint', 'allowed-tools'],
      ['when_to_use', 'disable_model_invocation', 'has_sub_skill', 'argument_hint', 'allowed_tools'],
    ]) {
      const skill = bundle(
        `---\nname: x\ndescription: d\n${when}: When the user asks\n${disable}: true\n${sub}: yes\n${hint}: <file>\n${tools}: Read Grep\n---\nbody`,
      );
      expect(skill, when).toMatchObject({
        whenToUse: 'When the user asks',
        disableModelInvocation: true,
        hasSubSkill: true,
        argumentHint: '<file>',
        allowedTools: ['Read', 'Grep'],
      });
    }
  });

  it('reads a Claude Code skill unchanged: comma-separated allowed-tools with arguments, bracketed argument-hint', () => {
    const skill = bundle(
      '---\nallowed-tools: Bash(git add:*), Bash(git status:*), Bash(git commit:*)\nargument-hint: [pr-number] [priority] [assignee]\ndescription: Create a git commit\nname: commit-pr\nmodel: claude-3-5-haiku-20241022\n---\nCommit $ARGUMENTS',
    );
    expect(skill).toMatchObject({
      displayName: 'commit-pr',
      argumentHint: '[pr-number] [priority] [assignee]',
      allowedTools: ['Bash(git add:*)', 'Bash(git status:*)', 'Bash(git commit:*)'],
      extra: { model: 'claude-3-5-haiku-20241022' },
    });
    expect(bundle('---\nname: x\ndescription: d\nargument-hint: [message]\n---\n').argumentHint).toBe('[message]');
    expect(bundle('---\nname: x\ndescription: d\nallowed-tools: Bash(git:*) Bash(jq:*) Read\n---\n').allowedTools).toEqual([
      'Bash(git:*)',
      'Bash(jq:*)',
      'Read',
    ]);
  });

  it('reads has-sub-skill under metadata and user-invocable in its spellings', () => {
    expect(bundle('---\nname: x\ndescription: d\nmetadata:\n  has-sub-skill: "true"\n---\n').hasSubSkill).toBe(true);
    expect(bundle('---\nname: x\ndescription: d\nuser-invocable: false\n---\n').userInvocable).toBe(false);
    expect(bundle('---\nname: x\ndescription: d\nuser_invocable: "no"\n---\n').userInvocable).toBe(false);
  });

  it('accepts each type, case-insensitively', () => {
    for (const type of ['prompt', 'inline', 'flow', 'reference', 'Inline']) {
      expect(bundle(`---\nname: x\ndescription: d\ntype: ${type}\n---\n`).type).toBe(type.toLowerCase());
    }
  });

  it('reads arguments as a list, a string, or {name, description} entries; numeric and repeated names are dropped', () => {
    expect(bundle('---\nname: x\ndescription: d\narguments: [file, mode, 1, file]\n---\n').arguments).toEqual([{ name: 'file' }, { name: 'mode' }]);
    expect(bundle('---\nname: x\ndescription: d\narguments: file  mode 2\n---\n').arguments).toEqual([{ name: 'file' }, { name: 'mode' }]);
    expect(bundle('---\nname: x\ndescription: d\narguments:\n  - name: target\n    description: What to check\n---\n').arguments).toEqual([
      { name: 'target', description: 'What to check' },
    ]);
  });

  it('keeps the Agent Skills fields and unknown keys', () => {
    const skill = bundle(
      '---\nname: pdf\ndescription: d\nlicense: Apache-2.0\ncompatibility: Needs python3\nmetadata:\n  author: me\n  version: "1.0"\nallowed-tools: [Bash, Read]\nmodel: opus\ncontext: fork\n---\n',
    );
    expect(skill).toMatchObject({
      license: 'Apache-2.0',
      compatibility: 'Needs python3',
      metadata: { author: 'me', version: '1.0' },
      allowedTools: ['Bash', 'Read'],
      extra: { model: 'opus', context: 'fork' },
    });
  });

  it('is lenient with unquoted colons in values, CRLF line endings and a byte-order mark', () => {
    const skill = bundle('\uFEFF---\r\nname: x\r\ndescription: Use when: the user asks for a review\r\n---\r\nBody line\r\n');
    expect(skill.description).toBe('Use when: the user asks for a review');
    expect(skill.body).toBe('Body line');
  });

  it('skips broken files with a reason: bad YAML, missing name, missing description, unknown type, no frontmatter, no closing fence, bad name', () => {
    expect(reason(() => bundle('---\nname: x\ndescription: [unclosed\n---\n'))).toMatch(/not valid YAML/);
    expect(reason(() => bundle('---\ndescription: d\n---\n'))).toMatch(/no name/);
    expect(reason(() => bundle('---\nname: x\n---\n'))).toMatch(/no description/);
    expect(reason(() => bundle('---\nname: x\ndescription: d\ntype: workflow\n---\n'))).toMatch(
      /unsupported type "workflow" \(use prompt, inline, flow or reference\)/,
    );
    expect(reason(() => bundle('# Just markdown'))).toMatch(/no frontmatter/);
    expect(reason(() => bundle('---\nname: x\ndescription: d\n'))).toMatch(/no closing ---/);
    expect(reason(() => bundle('---\nname: two words\ndescription: d\n---\n'))).toMatch(/not usable/);
    expect(reason(() => bundle('---\n- a\n- b\n---\n'))).toMatch(/key: value/);
    expect(reason(() => bundle('---\nname: [a]\ndescription: d\n---\n'))).toMatch(/single word/);
  });
});

describe('parseSkillText: flat <name>.md files', () => {
  it('takes the name from the file and the description from the first line', () => {
    const skill = parseSkillText('\n# Explain the build\n\nRun the build and explain failures.', { format: 'flat', fallbackName: 'explain' });
    expect(skill).toMatchObject({ displayName: 'explain', description: 'Explain the build', type: 'prompt' });
  });

  it('lets frontmatter override the fallbacks and cuts a long first line at 240 characters', () => {
    expect(parseSkillText('---\nname: other\ndescription: Given\n---\nbody', { format: 'flat', fallbackName: 'file' })).toMatchObject({
      displayName: 'other',
      description: 'Given',
    });
    const long = parseSkillText('x'.repeat(500), { format: 'flat', fallbackName: 'long' });
    expect(long.description.length).toBe(240);
    expect(long.description.endsWith('…')).toBe(true);
  });
});
