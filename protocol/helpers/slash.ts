import type { SkillSummary } from '../schemas/skills';

/** A slash command the composer offers: `/skill:<name>`, or `/<name>` for built-ins, sub-skills and Claude Code commands. */
export interface SlashCommand {
  command: string;
  skill: SkillSummary;
}

/** Commands for every skill users can run, built-ins first, then by name. */
export function slashCommands(skills: readonly SkillSummary[]): SlashCommand[] {
  return skills
    .filter((s): s is SkillSummary & { command: string } => s.command !== undefined)
    .map((skill) => ({ command: skill.command, skill }))
    .sort(
      (a, b) => Number(b.skill.source === 'builtin') - Number(a.skill.source === 'builtin') || (a.command < b.command ? -1 : a.command > b.command ? 1 : 0),
    );
}

/**
 * `/command args…` → the skill and its arguments, or null when the text is not a skill command (it is
 * then sent as an ordinary message). `/skill:<name>` works for every skill; `/<name>` for built-ins,
 * sub-skills and commands, and for other skills when no built-in has that name. The window and `deft run`
 * both read a prompt through this.
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
