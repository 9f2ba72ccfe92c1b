import type { SkillSummary } from '../../../../protocol';

/** A slash command the composer offers: `/skill:<name>`, or `/<name>` for built-ins and sub-skills. */
export interface SlashCommand {
  command: string;
  skill: SkillSummary;
}

/** Commands for every skill users can run, built-ins first, then by name. */
export function slashCommands(skills: readonly SkillSummary[]): SlashCommand[] {
  return skills
    .filter((s): s is SkillSummary & { command: string } => s.command !== undefined)
    .map((skill) => ({ command: skill.command, skill }))
    .sort((a, b) => Number(b.skill.source === 'builtin') - Number(a.skill.source === 'builtin') || (a.command < b.command ? -1 : a.command > b.command ? 1 : 0));
}

/** The command word being typed, while the text is `/` plus one word and nothing else; otherwise null. */
export function slashQuery(text: string): string | null {
  const match = /^\/(\S*)$/.exec(text);
  return match ? match[1]!.toLowerCase() : null;
}

/** Commands matching what was typed: prefix matches (of the command or the skill name) first, then other matches. */
export function matchCommands(commands: readonly SlashCommand[], query: string, limit = 50): SlashCommand[] {
  if (!query) return commands.slice(0, limit);
  const prefix: SlashCommand[] = [];
  const other: SlashCommand[] = [];
  for (const c of commands) {
    if (c.command.startsWith(query) || c.skill.name.startsWith(query)) prefix.push(c);
    else if (c.command.includes(query) || c.skill.description.toLowerCase().includes(query)) other.push(c);
  }
  return [...prefix, ...other].slice(0, limit);
}

/**
 * `/command args…` → the skill and its arguments, or null when the text is not a skill command (it is
 * then sent as an ordinary message). `/skill:<name>` works for every skill; `/<name>` for built-ins and
 * sub-skills, and for other skills when no built-in has that name.
 */
export function parseSlashCommand(text: string, commands: readonly SlashCommand[]): { skill: SkillSummary; args: string } | null {
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) return null;
  const word = match[1]!.toLowerCase();
  const args = (match[2] ?? '').trim();
  const exact = commands.find((c) => c.command === word);
  if (exact) return { skill: exact.skill, args };
  const byName = commands.find((c) => c.skill.name === (word.startsWith('skill:') ? word.slice(6) : word));
  return byName ? { skill: byName.skill, args } : null;
}
