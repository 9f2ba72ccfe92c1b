import { truncateGraphemes } from './expand';
import { LISTING_DESCRIPTION_CHARS, type SkillDefinition, type SkillOverride, type SkillSource, isModelInvocable } from './types';

const HEADINGS: Record<SkillSource, string> = {
  explicit: 'Skill folders given for this run',
  workspace: 'Workspace',
  user: 'User',
  extra: 'Extra',
  plugin: 'Plugins',
  builtin: 'Built-in',
};
const ORDER: SkillSource[] = ['explicit', 'workspace', 'user', 'extra', 'plugin', 'builtin'];
/** Beyond this the listing names the remaining skills only, so a huge collection cannot crowd out the conversation. */
const LISTING_BUDGET_CHARS = 40_000;

/**
 * The system-prompt section that tells the model which skills it may load with the Skill tool: each
 * model-invocable skill (sub-skills excluded) with its description (≤ 250 characters), when to use
 * it and its path, grouped by source. Empty when there is none.
 */
export function renderSkillListing(skills: readonly SkillDefinition[], overrides: (name: string) => readonly SkillOverride[] = () => []): string {
  const listed = skills.filter((s) => isModelInvocable(s) && !s.isSubSkill);
  if (!listed.length) return '';
  const lines = [
    '# Skills',
    "DISREGARD any earlier skill listings. Current available skills — when a request matches one, call the Skill tool with its name (and arguments) before doing the work yourself, then follow the instructions it loads. A skill's files (scripts, references) can be read at the path given.",
  ];
  let used = lines.join('\n').length;
  const overflow: string[] = [];
  for (const source of ORDER) {
    const group = listed.filter((s) => s.source === source);
    if (!group.length) continue;
    let heading = false;
    for (const skill of group) {
      const entry = [`- ${skill.name}: ${truncateGraphemes(oneLine(skill.description), LISTING_DESCRIPTION_CHARS)}`];
      if (skill.whenToUse) entry.push(`  When to use: ${truncateGraphemes(oneLine(skill.whenToUse), LISTING_DESCRIPTION_CHARS)}`);
      // A repository's skill can take the name of the user's own or a built-in: say so, and which is used, so
      // neither the model nor the user is misled (the higher-priority root wins, as in the reference).
      for (const hidden of overrides(skill.name)) entry.push(`  ${overrideLine(skill, hidden)}`);
      entry.push(`  Path: ${skill.file}`);
      const text = entry.join('\n');
      if (used + text.length > LISTING_BUDGET_CHARS) {
        overflow.push(skill.name);
        continue;
      }
      if (!heading) {
        lines.push(`### ${HEADINGS[source]}`);
        heading = true;
      }
      lines.push(text);
      used += text.length + 1;
    }
  }
  if (overflow.length) lines.push(`### More skills (names only; read a skill's SKILL.md or just load it with the Skill tool)\n${overflow.join(', ')}`);
  return lines.join('\n');
}

const OWNERS: Record<SkillSource, string> = {
  explicit: "the given folder's",
  workspace: "the workspace's",
  user: "the user's own",
  extra: "an extra folder's",
  plugin: "a plugin's",
  builtin: 'the built-in',
};

function overrideLine(skill: SkillDefinition, hidden: SkillOverride): string {
  const used = `this ${HEADINGS[skill.source].toLowerCase()} skill is used instead`;
  if (hidden.source === 'builtin') return `Overrides the built-in skill "${skill.name}" (${used}).`;
  return `Overrides ${OWNERS[hidden.source]} skill "${skill.name}" at ${hidden.file} (${used}; if the user means theirs, read it there).`;
}

/** Whitespace that `oneLine` would change: any but a single space between words. */
const UNTIDY_SPACE = /[^\S ]| {2}|^ | $/;

function oneLine(text: string): string {
  // Tested first: a global replace costs about 5 µs even when nothing matches, and most descriptions are one line (issue 36).
  return UNTIDY_SPACE.test(text) ? text.replace(/\s+/g, ' ').trim() : text;
}
