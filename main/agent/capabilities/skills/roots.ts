import { readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { builtOnce } from '#protocol/helpers/built-once';
import { findRepositoryRoot } from '#infra/git/repository';
import { type SkillRootSpec, rootKey } from './types';

/**
 * The top of the repository the workspace is in, by git's own rules (a `.git` that leads to a real git
 * directory, owned by the user, on the same file system) and never the user's home or above it; the
 * workspace when there is none. A stray or empty `.git` in a shared parent folder makes nothing a project.
 */
export function projectRoot(workspace: string, userHome: string = homedir()): string {
  const root = findRepositoryRoot(workspace, { ceiling: userHome });
  if (root === null) return workspace;
  // Spelt as the workspace is (the root is found on real paths): as many levels up.
  let real: string;
  try {
    real = realpathSync(workspace);
  } catch {
    return workspace;
  }
  const levels = relative(root, real).split(sep).filter(Boolean).length;
  return levels ? resolve(workspace, ...Array<string>(levels).fill('..')) : workspace;
}

/** `skills` settings in `<home>/settings.json`, built the first time they are read. */
export const skillSettingsSchema = builtOnce(() =>
  z
    .object({
      /** More folders of skills (after user skills, before built-ins). `~` expands; relative paths are taken from the project root. */
      extraDirs: z.array(z.string().min(1)).optional(),
      /** Folders that replace the automatic workspace and user roots (what `--skills-dir` sets for one run). */
      dirs: z.array(z.string().min(1)).optional(),
    })
    .strict(),
);
export type SkillSettings = z.infer<ReturnType<typeof skillSettingsSchema>>;

export interface RootOptions {
  workspace: string;
  /** Deft's home (`~/.deft`). */
  home: string;
  /** The user's home, for `~/.agents/skills` and `~` in settings. */
  userHome?: string;
  settings?: SkillSettings;
  /** `--skills-dir`: replaces the workspace and user roots (wins over `settings.dirs`). */
  explicitDirs?: readonly string[];
  builtinDir?: string | null;
  /**
   * The workspace is on another machine: its roots are marked `remote` (read there, not watched) and the project root
   * is not looked for (git's rules are checked on this machine's disk); the user's roots stay on this machine.
   */
  remoteWorkspace?: boolean;
  /** Enabled plugins' skill and command folders (after extra folders, before built-ins; not with explicit folders). */
  plugins?: ReadonlyArray<{ name: string; skillDirs: readonly string[]; commandDirs: readonly string[] }>;
}

function expandPath(path: string, userHome: string, base: string): string {
  const trimmed = path.trim();
  if (trimmed === '~') return userHome;
  if (trimmed.startsWith('~/') || trimmed.startsWith('~\\')) return join(userHome, trimmed.slice(2));
  return isAbsolute(trimmed) ? resolve(trimmed) : resolve(base, trimmed);
}

/** A folder named in settings: a relative one is in the (maybe remote) project, an absolute or `~` one on this machine. */
function placed(dir: string, remote: boolean): { watch: boolean; remote?: true } {
  const trimmed = dir.trim();
  const local = trimmed === '~' || trimmed.startsWith('~/') || trimmed.startsWith('~\\') || isAbsolute(trimmed);
  return remote && !local ? { watch: false, remote: true } : { watch: true };
}

/**
 * The folders to scan, highest priority first: workspace (`.deft/skills`, `.agents/skills`, `.claude/skills`, then Claude Code's
 * `.claude/commands`, in the workspace and in its project root), user (`~/.deft/skills`, `~/.agents/skills`,
 * `~/.claude/skills`, `~/.claude/commands`), extra folders from
 * settings, enabled plugins' skills and commands, built-in. Explicit folders (`--skills-dir` or `skills.dirs`) replace workspace and user.
 */
export function resolveSkillRoots(options: RootOptions): SkillRootSpec[] {
  const userHome = options.userHome ?? homedir();
  const remote = options.remoteWorkspace === true;
  const project = remote ? options.workspace : projectRoot(options.workspace, userHome);
  const there = remote ? { remote: true, watch: false } : { watch: true };
  const roots: SkillRootSpec[] = [];
  const explicit = options.explicitDirs?.length ? options.explicitDirs : options.settings?.dirs;
  if (explicit?.length) {
    for (const dir of explicit) roots.push({ path: expandPath(dir, userHome, options.workspace), source: 'explicit', ...placed(dir, remote) });
  } else {
    for (const base of [...new Set([options.workspace, project])]) {
      roots.push({ path: join(base, '.deft', 'skills'), source: 'workspace', ...there });
      roots.push({ path: join(base, '.agents', 'skills'), source: 'workspace', ...there });
      roots.push({ path: join(base, '.claude', 'skills'), source: 'workspace', ...there });
      roots.push({ path: join(base, '.claude', 'commands'), source: 'workspace', ...there, commands: true });
    }
    roots.push({ path: join(options.home, 'skills'), source: 'user', watch: true });
    roots.push({ path: join(userHome, '.agents', 'skills'), source: 'user', watch: true });
    roots.push({ path: join(userHome, '.claude', 'skills'), source: 'user', watch: true });
    roots.push({ path: join(userHome, '.claude', 'commands'), source: 'user', watch: true, commands: true });
  }
  for (const dir of options.settings?.extraDirs ?? []) roots.push({ path: expandPath(dir, userHome, project), source: 'extra', ...placed(dir, remote) });
  // Plugins are installed on this machine (under Deft's home), whatever machine the workspace is on.
  if (!explicit?.length)
    for (const plugin of options.plugins ?? []) {
      for (const dir of plugin.skillDirs) roots.push({ path: dir, source: 'plugin', watch: true, plugin: plugin.name });
      for (const dir of plugin.commandDirs) roots.push({ path: dir, source: 'plugin', watch: true, commands: true, plugin: plugin.name });
    }
  const builtin = options.builtinDir === undefined ? builtinSkillsDir() : options.builtinDir;
  if (builtin) roots.push({ path: builtin, source: 'builtin', watch: false });
  const seen = new Set<string>();
  return roots.filter((r) => (seen.has(rootKey(r)) ? false : (seen.add(rootKey(r)), true)));
}

let cachedBuiltin: string | null | undefined;

/**
 * The app's `skills/` folder: the nearest ancestor of this module holding Deft's package.json and a
 * `skills` folder. Works from the sources (vitest, tsx), from the bundle in out/main, and in Electron.
 */
export function builtinSkillsDir(start: string = dirname(fileURLToPath(import.meta.url))): string | null {
  if (cachedBuiltin !== undefined && start === dirname(fileURLToPath(import.meta.url))) return cachedBuiltin;
  let found: string | null = null;
  for (let dir = start; ; ) {
    const candidate = join(dir, 'skills');
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string };
      if (pkg.name === 'deft' && statSync(candidate).isDirectory()) {
        found = candidate;
        break;
      }
    } catch {
      // Not here; keep walking up.
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  if (start === dirname(fileURLToPath(import.meta.url))) cachedBuiltin = found;
  return found;
}
