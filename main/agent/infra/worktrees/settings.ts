import { z } from 'zod';
import { builtOnce } from '#protocol/helpers/built-once';
import type { Environment } from '#contract/environment';
import type { WorktreeMachine } from './machine';
import { SettingsStore } from '../settings/settings-store';
import { TrustStore } from '../settings/trust';
import { workspacePlace } from '../environment/workspace-place';

/** `worktree` in a settings file, built the first time one is read. */
const storedSchema = builtOnce(() => z.object({ copy: z.array(z.string().max(500)).max(100).optional() }));

async function projectFile(environment: Environment, path: string): Promise<string[]> {
  try {
    const parsed = storedSchema().safeParse((JSON.parse(await environment.readText(path)) as Record<string, unknown>)?.worktree);
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
export async function worktreeCopyGlobs(home: string, repoRoot: string, machine?: WorktreeMachine): Promise<string[]> {
  const user = storedSchema().safeParse((await new SettingsStore(home).readRaw()).worktree);
  const globs = user.success ? [...(user.data.copy ?? [])] : [];
  // A repository on another machine: its files read there, its trust kept by host + path (its folder's key).
  const place = machine?.environment ? workspacePlace(repoRoot, machine.environment, machine.sessionKey(repoRoot)) : workspacePlace(repoRoot);
  if ((await new TrustStore(home, place).get()).trusted)
    for (const file of ['settings.json', 'settings.local.json'])
      globs.push(...(await projectFile(place.environment, place.environment.path.join(repoRoot, '.deft', file))));
  return [...new Set(globs)];
}
