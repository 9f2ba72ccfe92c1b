import { relative, sep } from 'node:path';
import { isWithin } from '../policies/path-guard';

/** A path as people read it: relative inside the workspace, `~/…` inside the home, else absolute. */
export function displayPath(path: string, workspace: string, userHome: string): string {
  if (isWithin(path, workspace)) return relative(workspace, path) || '.';
  if (isWithin(path, userHome)) return `~${sep}${relative(userHome, path)}`;
  return path;
}
