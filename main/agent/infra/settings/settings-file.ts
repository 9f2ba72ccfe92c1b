import type { Environment } from '#contract/environment';
import { localEnvironment } from '../environment/local/local-environment';

/**
 * A settings file and the machine it is on: the user's (`~/.deft/settings.json`) on this one, the workspace's own
 * (`.deft/settings*.json`) on the workspace's environment — a remote folder's are read there, never from a local
 * folder of the same path.
 */
export interface SettingsFile {
  path: string;
  environment: Environment;
}

export const onThisMachine = (path: string): SettingsFile => ({ path, environment: localEnvironment() });

/** What reading a settings file found: its text, nothing (missing), something that is not a file, or an error code. */
export type SettingsRead = { text: string } | { missing: true } | { notFile: true } | { error: string };

export async function readSettingsFile(file: SettingsFile): Promise<SettingsRead> {
  try {
    // A FIFO in a cloned repository's .deft/ would block the read, and with it every tool call, forever.
    if (!(await file.environment.stat(file.path)).isFile()) return { notFile: true };
    return { text: await file.environment.readText(file.path) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { missing: true };
    return { error: code ?? (error as Error).message };
  }
}

/** A cheap fingerprint of the file (size, time, inode where the backend knows it), for caches; '-' when it is not there. */
export function settingsFingerprint(file: SettingsFile): Promise<string> {
  return file.environment.stat(file.path).then(
    (s) => `${s.mtimeMs}:${s.size}:${s.ino}`,
    () => '-',
  );
}
