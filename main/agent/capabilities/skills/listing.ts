import { truncateGraphemes } from './expand';
import { LISTING_DESCRIPTION_CHARS, type SkillDefinition, type SkillSource, isModelInvocable } from './types';

const HEADINGS: Record<SkillSource, string> = {
  explicit: 'Skill folders given for this run',
  workspace: 'Workspace',
  user: 'User',
  extra: 'Extra',
  builtin: 'Built-in',
};
const ORDER: SkillSource[] = ['explicit', 'workspace', 'user', 'extra', 'builtin'];
/** Beyond this the listing names the remaining skills only, so a huge collection cannot crowd out the conversation. */
const LISTING_BUDGET_CHARS = 40_000;

/**
 * The system-prompt section that tells the model which skills it may load with the Skill tool: each
 * model-invocable skill (sub-skills excluded) with its description (≤ 250 characters), when to use
 * it and its path, grouped by source. Empty when there is none.
 */
export function renderSkillListing(skills: readonly SkillDefinition[], overrides: (name: string) => readonly { source: SkillSource }[] = () => []): string {
  const listed = skills.filter((s) => isModelInvocable(s) && !s.isSubSkill);
  if (!listed.length) return '';
  const lines = [
    '# Skills',
    'DISREGARD any earlier skill listings. Current available skills — when a request matches one, call the Skill tool with its name (and arguments) before doing the work yourself, then follow the instructions it loads. A skill\'s files (scripts, references) can be read at the path given.',
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
      // A repository's skill can take a built-in's name: say so, so neither the model nor the user is misled.
      if (skill.source !== 'builtin' && overrides(skill.name).some((o) => o.source === 'builtin')) entry.push(`  Overrides the built-in skill "${skill.name}" (this ${HEADINGS[skill.source].toLowerCase()} skill is used instead).`);
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

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
