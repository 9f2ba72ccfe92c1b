import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { WorkspacePlace } from '#contract/environment';
import { isWithin } from '../policies/path-guard';
import { writeFileAtomic } from '../platform/files';
import { type SettingsFile, readSettingsFile } from './settings-file';

/** A settings file that cannot be changed, with what to do about it. */
export class SettingsEditError extends Error {
  constructor(
    message: string,
    readonly code: 'invalid_request' | 'not_found' = 'invalid_request',
  ) {
    super(message);
  }
}

/**
 * Change one settings file in place, keeping every key `change` does not touch. A file that does not parse is
 * never overwritten (the user would lose what they wrote); the user's own (`workspace` null) is written atomically
 * with mode 0600 on this machine; a workspace file only inside the workspace, on its machine, never through a
 * symlinked `.deft/` folder or file a cloned repository could point at something else.
 */
export async function editSettingsFile(
  file: SettingsFile,
  workspace: Pick<WorkspacePlace, 'path'> | null,
  change: (root: Record<string, unknown>) => void,
): Promise<void> {
  const { path, environment } = file;
  if (workspace) await checkInsideWorkspace(file, workspace.path);
  const read = await readSettingsFile(file);
  let root: unknown = {};
  if ('notFile' in read)
    throw new SettingsEditError(`${path} is not a regular file (a pipe, device or folder). Fix it by hand first; Deft does not overwrite it.`);
  if ('error' in read) throw new SettingsEditError(`${path} cannot be read (${read.error}). Fix it by hand first; Deft does not overwrite it.`);
  if ('text' in read && read.text.trim()) {
    try {
      root = JSON.parse(read.text) as unknown;
    } catch (error) {
      throw new SettingsEditError(`${path} is not valid JSON (${(error as Error).message}). Fix it by hand first; Deft does not overwrite it.`);
    }
  }
  if (!root || typeof root !== 'object' || Array.isArray(root)) throw new SettingsEditError(`${path} must hold a JSON object; fix it, then try again.`);
  change(root as Record<string, unknown>);
  const text = JSON.stringify(root, null, 2) + '\n';
  if (!workspace) {
    await mkdir(dirname(path), { recursive: true });
    await writeFileAtomic(path, text, 0o600);
    return;
  }
  // The workspace's file, on the workspace's machine: through its environment (a remote folder's over SSH).
  await environment.mkdir(environment.path.dirname(path), { recursive: true });
  await checkInsideWorkspace(file, workspace.path);
  await environment.replaceFile(path, text);
}

async function checkInsideWorkspace({ path, environment }: SettingsFile, workspacePath: string): Promise<void> {
  const workspace = await environment.realpath(workspacePath);
  const parent = environment.path.dirname(path);
  for (const target of [parent, path]) {
    const link = await environment.lstat(target).catch(() => null);
    if (link?.isSymbolicLink())
      throw new SettingsEditError(
        `${target} is a symbolic link; Deft does not write settings through it. Replace it with a real ${target === path ? 'file' : 'folder'} to edit settings here.`,
      );
  }
  const folder = await environment.realpath(parent).catch(() => null);
  if (folder && !isWithin(folder, workspace)) throw new SettingsEditError(`${parent} resolves outside the workspace; Deft does not write settings there.`);
}

/** `root[key]` as an object to change (created when missing); anything else is an error naming the file. */
export function objectAt(root: Record<string, unknown>, key: string, path: string): Record<string, unknown> {
  const value = root[key] ?? {};
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new SettingsEditError(`"${key}" in ${path} must be an object; fix it, then try again.`);
  root[key] = value;
  return value as Record<string, unknown>;
}
