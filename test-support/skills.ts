import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Write `<root>/<rel>` (creating folders). */
export async function put(root: string, rel: string, text: string): Promise<string> {
  const path = join(root, rel);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
  return path;
}

/** A SKILL.md with the given name, description and extra frontmatter lines. */
export function skillMd(name: string, description = `The ${name} skill.`, extra = '', body = `Instructions of ${name}.`): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra ? `${extra}\n` : ''}---\n${body}\n`;
}
