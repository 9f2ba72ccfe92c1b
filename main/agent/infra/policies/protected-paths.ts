import { basename, dirname, isAbsolute, resolve, sep } from 'node:path';
import { isSensitivePath } from './sensitive';
import type { ShellCommand } from './shell-parse';

export interface Places {
  workspace: string;
  /** Deft's home (~/.deft). */
  home: string;
  /** The user's home folder, for `~`. */
  userHome: string;
}

const SETTINGS_FILE = /^(settings|secrets)([.\w-]*)\.json$/i;

/**
 * Why writing this path always asks the user, whatever the mode and rules: repository internals
 * (`.git/`, where hooks run code), Deft's own settings (they hold the permission rules), and files
 * holding secrets. Null when the path is not protected.
 */
export function protectedPathReason(path: string, places: Places): string | null {
  const normal = resolve(path);
  if (normal.split(sep).includes('.git')) return 'it is inside a .git folder (repository internals, including hooks that run code)';
  const name = basename(normal);
  if (SETTINGS_FILE.test(name) && (basename(dirname(normal)) === '.deft' || dirname(normal) === resolve(places.home))) {
    return "it is one of Deft's settings files, which hold the permission rules";
  }
  if (isSensitivePath(normal)) return 'it holds secrets (.env files, private keys, cloud credentials)';
  return null;
}

/** A shell word that looks like a path, resolved against the workspace; null for options and expansions. */
function wordPath(word: string, places: Places): string | null {
  if (!word || word.startsWith('-') || word.includes('$') || word.includes('`') || /^\d+$/.test(word)) return null;
  const expanded = word.replace(/^~(?=\/|$)/, places.userHome);
  return isAbsolute(expanded) ? expanded : resolve(places.workspace, expanded);
}

/** A protected path a shell command names in its arguments or redirections (the shell cannot tell reads from writes, so any mention asks). */
export function protectedPathInCommand(command: ShellCommand, places: Places): { word: string; reason: string } | null {
  const words = command.name ? [...command.args, ...command.redirects] : [...command.text.split(/\s+/), ...command.redirects];
  for (const raw of words) {
    const word = raw.replace(/^[^=]*=(?=[./~])/, '');
    const path = wordPath(word, places);
    const reason = path ? protectedPathReason(path, places) : null;
    if (reason) return { word: raw, reason };
  }
  return null;
}
