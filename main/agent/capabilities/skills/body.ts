import { parseSkillText } from './parser';
import { MAX_SKILL_FILE_BYTES } from './scanner';
import type { SkillFs } from './skill-fs';
import type { SkillDefinition } from './types';

/**
 * A skill's instructions, read from its file when the skill is loaded (the catalog keeps only what its frontmatter
 * says: a thousand skills cost their listing, not their text). The file is read as it is now: an edit made since
 * the catalog was built is what the model gets. Throws an Error whose message says what happened when the file is
 * gone or no longer a skill.
 */
export async function readSkillBody(skill: Pick<SkillDefinition, 'file' | 'format' | 'name'>, fs: SkillFs): Promise<string> {
  const where = `the skill "${skill.name}" at ${skill.file}`;
  let text: string;
  try {
    // As the scanner does: a FIFO or a device put in the file's place would block the read or fill memory.
    const info = await fs.stat(skill.file);
    if (!info.isFile() || info.size > MAX_SKILL_FILE_BYTES) throw new Error(`${where} is no longer a plain file of at most 1 MiB.`);
    text = await fs.readText(skill.file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw code ? new Error(`Cannot read ${where} (${code}): it may have just been moved or removed.`, { cause: error }) : error;
  }
  const fallbackName = skill.format === 'flat' ? skill.file.replace(/^.*[\\/]/, '').replace(/\.md$/i, '') : undefined;
  try {
    return parseSkillText(text, { format: skill.format, ...(fallbackName ? { fallbackName } : {}) }).body;
  } catch (error) {
    throw new Error(`${where[0]!.toUpperCase()}${where.slice(1)} can no longer be used: ${(error as Error).message}.`, { cause: error });
  }
}
