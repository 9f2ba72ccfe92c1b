import { accessSync, constants } from 'node:fs';

/** Whether `path` names a file this process may execute. */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
