import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { SettingsStore } from '../settings/settings-store';
import { TrustStore } from '../settings/trust';
import { workspacePlace } from '../environment/workspace-place';

const Stored = z.object({ copy: z.array(z.string().max(500)).max(100).optional() });

async function projectFile(path: string): Promise<string[]> {
  try {
    const parsed = Stored.safeParse((JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>)?.worktree);
    return parsed.success ? (parsed.data.copy ?? []) : [];
  } catch {
    return [];
  }
}

/**
 * The `worktree.copy` globs: untracked files to copy into a new worktree. From `~/.deft/settings.json`, and the
 * repository's `.deft/settings.json` and `.deft/settings.local.json` only once the folder is trusted (a cloned
 * repository may ship either).
 */
export async function worktreeCopyGlobs(home: string, repoRoot: string): Promise<string[]> {
  const user = Stored.safeParse((await new SettingsStore(home).readRaw()).worktree);
  const globs = user.success ? [...(user.data.copy ?? [])] : [];
  // Worktrees are made on this machine only (left out on a remote folder): the repository is a local folder.
  if ((await new TrustStore(home, workspacePlace(repoRoot)).get()).trusted)
    for (const file of ['settings.json', 'settings.local.json']) globs.push(...(await projectFile(join(repoRoot, '.deft', file))));
  return [...new Set(globs)];
}
