import type { Environment } from '#contract/environment';
import { findImports } from '#infra/instructions/imports';
import { readInstructionFile } from '#infra/instructions/read-file';
import { escapeXmlAttr } from './expand';
import type { SkillDefinition } from './types';

const MAX_REFERENCED_CHARS = 40_000;
const SHELL_LINE = /!`([^`\n]+)`/g;

/**
 * A Claude Code command's `` !`command` `` lines. Deft never runs them itself: the model is asked to run each with
 * Bash first, so they go the normal way (the permission rules, approval, the OS sandbox). A workspace's command in a
 * folder the user has not trusted gets none of them run: nothing a repository ships runs before trust.
 */
export function commandShellLines(body: string, skill: Pick<SkillDefinition, 'source'>, trusted: boolean): string {
  const commands = [...body.matchAll(SHELL_LINE)].map((m) => m[1]!.trim());
  if (!commands.length) return body;
  const allowed = skill.source !== 'workspace' || trusted;
  const replaced = body.replace(SHELL_LINE, (_, command: string) =>
    allowed ? `(the output of \`${command.trim()}\`)` : `\`${command.trim()}\` (not run: this folder is not trusted)`,
  );
  if (!allowed)
    return `${replaced}\n\nThis command asks for shell output, but it comes from a folder the user has not trusted, so its commands are not run. Do not run them; tell the user to trust the folder if they want them.`;
  return `Before you follow the instructions below, run each of these commands with the Bash tool and use its output where the instructions refer to it:\n${commands.map((c) => `- \`${c}\``).join('\n')}\n\n${replaced}`;
}

/** The files a command names with `@path` (relative to the workspace), appended under the path policy: inside `roots`, never a secret. */
export async function commandFileReferences(
  body: string,
  workspace: string,
  roots: readonly string[],
  deftHome: string,
  environment?: Environment,
): Promise<string> {
  const blocks: string[] = [];
  for (const spec of findImports(body)) {
    const path = spec.startsWith('/') ? spec : `${workspace}/${spec}`;
    const file = await readInstructionFile(path, { roots, maxChars: MAX_REFERENCED_CHARS, deftHome, workspace, ...(environment ? { environment } : {}) });
    if (!file.ok) continue;
    blocks.push(`<file path="${escapeXmlAttr(spec)}"${file.truncated ? ' truncated="true"' : ''}>\n${file.text}\n</file>`);
  }
  return blocks.length ? `${body}\n\nFiles the command refers to:\n${blocks.join('\n')}` : body;
}
