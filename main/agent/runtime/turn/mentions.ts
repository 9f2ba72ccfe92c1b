import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { Mention } from '#protocol';
import type { Environment } from '#contract/environment';
import { CommandError } from '#contract/errors';
import { guardPath, isWithin } from '#infra/policies/path-guard';
import { attachmentsDir } from '#infra/sessions/attachments-dir';

/**
 * Check the files a prompt mentions with `@`: a workspace path (through the path policy — inside the
 * workspace, not a secret file, existing), or a file dropped into this session's window (saved in its
 * attachments folder). Anything else is refused, so a prompt cannot point the model at arbitrary files
 * in the user's name. Returns the mentions with paths as the model should read them.
 */
export async function resolveMentions(
  mentions: readonly Mention[],
  places: { environment: Environment; workspace: string; sessionDir: string },
): Promise<Mention[]> {
  const resolved: Mention[] = [];
  for (const mention of mentions) {
    const path = await resolveOne(mention.path, places);
    if (!resolved.some((m) => m.path === path)) resolved.push({ label: mention.label, path });
  }
  return resolved;
}

async function resolveOne(input: string, places: { environment: Environment; workspace: string; sessionDir: string }): Promise<string> {
  const refused = (why: string) => new CommandError('invalid_request', `@${input} cannot be mentioned: ${why}`);
  if (isAbsolute(input)) {
    const dropped = resolve(attachmentsDir(places.sessionDir));
    if (isWithin(resolve(input), dropped)) {
      const [root, real] = await Promise.all([realpath(dropped).catch(() => null), realpath(input).catch(() => null)]);
      if (!root || !real || !isWithin(real, root) || !(await stat(real)).isFile()) throw refused('that dropped file no longer exists.');
      return real;
    }
  }
  let guarded;
  try {
    guarded = await guardPath(input, 'read', { environment: places.environment, workspace: places.workspace });
  } catch (error) {
    throw refused((error as Error).message);
  }
  if (!guarded.inside) throw refused('only files inside the workspace, or files dropped into this window, can be mentioned.');
  if (!(await places.environment.stat(guarded.real).catch(() => null))) throw refused('it does not exist (it may have been moved or deleted).');
  return guarded.display;
}

/** The note the model reads after the prompt, listing what the user pointed at. */
export function mentionNote(mentions: readonly Mention[], workspace: string): string {
  if (!mentions.length) return '';
  const lines = mentions.map((m) =>
    isAbsolute(m.path) && !isWithin(m.path, workspace) ? `- @${m.label} (a file the user dropped in): ${m.path}` : `- ${m.path}`,
  );
  return `\n\nFiles the user referred to with @ (open them with Read when they matter):\n${lines.join('\n')}`;
}
