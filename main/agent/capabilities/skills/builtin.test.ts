import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildActivation } from './activation';
import { readSkillBody } from './body';
import { builtinSkillsDir } from './roots';
import { scanRoot } from './scanner';
import { localSkillFs } from './skill-fs';
import { type SkillDefinition, isModelInvocable, slashCommandFor } from './types';

const body = (skill: SkillDefinition) => readSkillBody(skill, localSkillFs);

const dir = builtinSkillsDir();

async function builtins() {
  expect(dir).toBe(join(import.meta.dirname, '../../../../skills'));
  return scanRoot({ path: dir!, source: 'builtin', watch: false });
}

describe('built-in skills (skills/)', () => {
  it('all parse, none is skipped', async () => {
    const scan = await builtins();
    expect(scan.skipped).toEqual([]);
    expect(scan.skills.map((s) => s.name)).toEqual(['commit', 'review', 'skill-creator']);
    for (const skill of scan.skills) {
      expect(skill.description.length, skill.name).toBeGreaterThan(40);
      expect(skill.description.length, skill.name).toBeLessThanOrEqual(1024);
      expect((await body(skill)).split('\n').length, skill.name).toBeLessThan(500);
      expect(slashCommandFor(skill)).toBe(skill.name);
    }
  });

  it('review: model-invocable; expands with the scope as an ARGUMENTS line and changes nothing else', async () => {
    const review = (await builtins()).skills.find((s) => s.name === 'review')!;
    expect(isModelInvocable(review)).toBe(true);
    const { content, block } = buildActivation(review, await body(review), 'src/ "main...HEAD"', 'user', 's1');
    expect(content.startsWith(await body(review))).toBe(true);
    expect(content.endsWith('\n\nARGUMENTS: src/ "main...HEAD"')).toBe(true);
    expect(block).toContain(`<skill-loaded name="review" trigger="user" source="builtin" dir="${join(dir!, 'review')}">`);
    expect(content).toMatch(/git diff --cached/);
  });

  it('commit: user-only (the model must not commit on its own); expands the user context', async () => {
    const commit = (await builtins()).skills.find((s) => s.name === 'commit')!;
    expect(commit.disableModelInvocation).toBe(true);
    expect(isModelInvocable(commit)).toBe(false);
    const { content } = buildActivation(commit, await body(commit), 'fixes #42', 'user', 's1');
    expect(content.endsWith('ARGUMENTS: fixes #42')).toBe(true);
    expect(content).toMatch(/Never commit without an explicit yes/);
  });

  it('skill-creator: points at its own format reference (which exists) and carries the description as arguments', async () => {
    const creator = (await builtins()).skills.find((s) => s.name === 'skill-creator')!;
    const { content } = buildActivation(creator, await body(creator), 'a skill that drafts <release> notes', 'model', 's1');
    const reference = join(dir!, 'skill-creator', 'references', 'format.md');
    expect(content).toContain(`\`${reference}\``);
    expect(content).not.toContain('${DEFT_SKILL_DIR}');
    expect(content.endsWith('ARGUMENTS: a skill that drafts &lt;release&gt; notes')).toBe(true);
    await access(reference);
    expect(await readFile(reference, 'utf8')).toContain('$ARGUMENTS[0]');
  });
});
