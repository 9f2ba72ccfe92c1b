import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import type { Environment } from '#contract/environment';
import { localEnvironment } from '../environment/local/local-environment';
import { findRepositoryRoot } from '../git/repository';
import { isWithin } from '../policies/path-guard';
import type { Candidate } from './load';

/** The names an instruction file goes by in a folder, in the order they are read (both when both are there). */
export const INSTRUCTION_NAMES = ['AGENTS.md', 'CLAUDE.md'] as const;

/** Folders whose instruction files are never picked up on touch: what other people's packages ship is not the project's. */
const SKIPPED_FOLDERS = new Set(['node_modules', '.git', 'vendor', '.venv', 'venv', '__pycache__']);

/** Which user-level files of other agents to read as well (`"instructions"` in settings.json). */
export interface UserFileChoices {
  claudeUser: boolean;
  codexUser: boolean;
}

/** The user's own instruction files: `~/.deft/AGENTS.md`, then Claude Code's and Codex's when turned on. */
export function userCandidates(deftHome: string, choices: UserFileChoices, userHome: string = homedir()): Candidate[] {
  return [
    { path: join(deftHome, 'AGENTS.md'), scope: 'user' },
    ...(choices.claudeUser ? [{ path: join(userHome, '.claude', 'CLAUDE.md'), scope: 'user' as const }] : []),
    ...(choices.codexUser ? [{ path: join(userHome, '.codex', 'AGENTS.md'), scope: 'user' as const }] : []),
  ];
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The real workspace and the top of its repository (never the home or above; the workspace when there is none). */
export function instructionRoots(workspace: string, userHome: string = homedir()): { workspace: string; projectRoot: string } {
  const real = realOr(workspace);
  return { workspace: real, projectRoot: findRepositoryRoot(real, { ceiling: userHome }) ?? real };
}

function filesIn(dir: string, scope: Candidate['scope']): Candidate[] {
  return INSTRUCTION_NAMES.map((name) => ({ path: join(dir, name), scope }));
}

/** The project's files, from the repository's top down to the workspace. */
export function projectCandidates(roots: { workspace: string; projectRoot: string }): Candidate[] {
  const steps = relative(roots.projectRoot, roots.workspace).split(sep).filter(Boolean);
  const dirs = [roots.projectRoot];
  for (const step of steps) dirs.push(join(dirs[dirs.length - 1]!, step));
  return dirs.flatMap((dir) => filesIn(dir, 'project'));
}

/**
 * The folders below the workspace whose instruction files apply to `path` (a file the agent read or edited), the
 * nearest last. None for a path outside the workspace or inside a dependency folder.
 */
export function nestedFolders(realWorkspace: string, path: string): string[] {
  if (!isWithin(path, realWorkspace) || path === realWorkspace) return [];
  const steps = relative(realWorkspace, dirname(path)).split(sep).filter(Boolean);
  if (steps.some((step) => SKIPPED_FOLDERS.has(step))) return [];
  const dirs: string[] = [];
  for (const step of steps) dirs.push(join(dirs[dirs.length - 1] ?? realWorkspace, step));
  return dirs;
}

/** The candidate files of one nested folder. */
export function nestedCandidates(dir: string): Candidate[] {
  return filesIn(dir, 'nested');
}

/**
 * Those of `dirs` that hold an instruction file (of any kind: whether it may be read is decided when it is), on
 * `environment` (default: this machine).
 */
export async function foldersWithInstructions(dirs: readonly string[], environment: Environment = localEnvironment()): Promise<string[]> {
  const found = await Promise.all(
    dirs.map(async (dir) =>
      (
        await Promise.all(
          INSTRUCTION_NAMES.map((name) =>
            environment.lstat(join(dir, name)).then(
              () => true,
              () => false,
            ),
          ),
        )
      ).some(Boolean)
        ? dir
        : null,
    ),
  );
  return found.filter((dir): dir is string => dir !== null);
}
