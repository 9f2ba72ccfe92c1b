import { lstatSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/**
 * Which folders the file watcher need not walk or watch (node_modules, build output): those that git's status never
 * reports, because a `.gitignore` of the workspace leaves them out and the store's HEAD holds nothing under them. The
 * decision is conservative — a folder it walks in vain costs time, one it wrongly skips would hide changes:
 *
 * - only `.gitignore` files inside the workspace count (the watch sees every change to them: a changed one makes the
 *   watch start again and the next capture scan, change-watch.ts), read as regular files (a link, which could point
 *   at a file a command changes unseen, or an unreadable one, and nothing under that folder is skipped);
 * - only plain rules: a name (`node_modules`, `dist/`) or a path from the file's folder (`/build`, `out/gen/`),
 *   without wildcards, escapes or spaces; any other rule is simply not used;
 * - nothing is skipped below a `.gitignore` holding a negation (`!…`), which could bring a folder back;
 * - never a folder the store's HEAD holds a path in (files the repository tracks are captured even where ignored).
 *
 * The store's own `info/exclude` (rules inherited from above the workspace) is not used: it lives outside what the
 * watch sees.
 */

interface Rules {
  /** Names matched at any depth below the file's folder. */
  names: Set<string>;
  /** Paths relative to the file's folder. */
  paths: Set<string>;
}

type Level = Rules | 'none' | 'blocked';

const PLAIN = /^[A-Za-z0-9._@+-]+(?:\/[A-Za-z0-9._@+-]+)*$/;

/** The plain rules of one `.gitignore`, 'none' without one, 'blocked' when nothing below it may be skipped. */
export function parseIgnoreFile(text: string): Rules | 'blocked' {
  const rules: Rules = { names: new Set(), paths: new Set() };
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (!line || line.startsWith('#')) continue;
    if (line.startsWith('!') || line.startsWith('\\!')) return 'blocked';
    let body = line.endsWith('/') ? line.slice(0, -1) : line;
    const anchored = body.startsWith('/');
    if (anchored) body = body.slice(1);
    if (!PLAIN.test(body) || body.split('/').some((part) => part === '.' || part === '..')) continue;
    if (anchored || body.includes('/')) rules.paths.add(body);
    else rules.names.add(body);
  }
  return rules;
}

export class WatchIgnore {
  private readonly levels = new Map<string, Level>();

  constructor(
    private readonly workspace: string,
    /** Whether the store's HEAD holds anything at this workspace path (null HEAD: holds everything, nothing is skipped). */
    private readonly tracked: (path: string) => Promise<boolean>,
  ) {}

  /** Whether the watch may leave this folder (absolute, inside the workspace) unwalked and unwatched. */
  async skip(folder: string): Promise<boolean> {
    if (!this.ignored(folder)) return false;
    const rel = relative(this.workspace, folder).split(sep).join('/');
    return !(await this.tracked(rel).catch(() => true));
  }

  /** Whether a plain rule of a `.gitignore` in a folder above `folder` (within the workspace) matches it. */
  ignored(folder: string): boolean {
    if (folder === this.workspace || !folder.startsWith(this.workspace + sep)) return false;
    const name = folder.slice(folder.lastIndexOf(sep) + 1);
    const above: string[] = [];
    for (let dir = dirname(folder); ; dir = dirname(dir)) {
      above.push(dir);
      if (dir === this.workspace || dir.length <= this.workspace.length) break;
    }
    let matched = false;
    for (const dir of above) {
      const level = this.level(dir);
      if (level === 'blocked') return false;
      if (level === 'none' || matched) continue;
      if (level.names.has(name) || level.paths.has(relative(dir, folder).split(sep).join('/'))) matched = true;
    }
    return matched;
  }

  private level(dir: string): Level {
    let level = this.levels.get(dir);
    if (level) return level;
    const file = join(dir, '.gitignore');
    try {
      const stats = lstatSync(file);
      level = stats.isFile() ? parseIgnoreFile(readFileSync(file, 'utf8')) : 'blocked';
    } catch (error) {
      level = (error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'none' : 'blocked';
    }
    this.levels.set(dir, level);
    return level;
  }
}
