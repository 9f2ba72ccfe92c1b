export { type SlashCommand, parseSlashCommand, slashCommands } from '#protocol/helpers/slash';
import type { SlashCommand } from '#protocol/helpers/slash';

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
