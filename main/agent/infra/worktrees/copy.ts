import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir } from 'node:fs/promises';
import { isAbsolute, join, posix, relative, sep } from 'node:path';
import { picomatchPackage } from '#infra/platform/on-demand';
import { isSensitivePath } from '../policies/sensitive';
import { git, nulList } from './run';

/** How far the copy looks: folders it walks, files it copies, bytes per file. */
export const COPY_LIMITS = { entries: 50_000, files: 1_000, bytes: 10 * 1024 * 1024 };

export interface CopyReport {
  copied: string[];
  /** Matched but not copied, each with the reason (a link, a secret, too large, tracked by git…). */
  skipped: Array<{ path: string; reason: string }>;
}

/** Why a glob is refused: absolute, climbing out (`..`), or empty. */
export function globProblem(glob: string): string | null {
  if (!glob.trim()) return 'an empty pattern';
  if (isAbsolute(glob) || /^[A-Za-z]:/.test(glob) || glob.startsWith('~')) return `"${glob}" is not relative to the repository`;
  if (glob.split(/[\\/]/).includes('..')) return `"${glob}" climbs out of the repository ("..")`;
  return null;
}

/** Whether a relative path (posix) is or passes a link: each part is looked at without following links (the last may be a file). */
async function throughLink(root: string, rel: string): Promise<boolean> {
  let at = root;
  const parts = rel.split('/').filter(Boolean);
  for (const [i, part] of parts.entries()) {
    at = join(at, part);
    const info = await lstat(at).catch(() => null);
    if (!info) return false;
    if (info.isSymbolicLink() || (!info.isDirectory() && i < parts.length - 1)) return true;
  }
  return false;
}

/** Files under `root` matching one of `globs`, walked without following links, `.git` left out. */
async function matching(root: string, globs: readonly string[], skipped: CopyReport['skipped']): Promise<string[]> {
  const found = new Set<string>();
  let visited = 0;
  for (const glob of globs) {
    const isMatch = picomatchPackage()(glob, { dot: true });
    const base = picomatchPackage().scan(glob).base;
    if (base && (await throughLink(root, base))) {
      skipped.push({ path: base, reason: 'a link: links are never followed' });
      continue;
    }
    const walk = async (relDir: string): Promise<void> => {
      const entries = await readdir(join(root, relDir), { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (++visited > COPY_LIMITS.entries) return;
        const rel = relDir ? posix.join(relDir, entry.name) : entry.name;
        if (entry.name === '.git') continue;
        if (entry.isDirectory()) await walk(rel);
        else if (isMatch(rel)) {
          if (entry.isSymbolicLink()) skipped.push({ path: rel, reason: 'a link: links are never copied' });
          else if (entry.isFile()) found.add(rel);
        }
      }
    };
    const start = await lstat(join(root, base)).catch(() => null);
    if (start?.isDirectory()) await walk(base);
    else if (start && isMatch(base)) {
      if (start.isSymbolicLink()) skipped.push({ path: base, reason: 'a link: links are never copied' });
      else if (start.isFile()) found.add(base);
    }
  }
  return [...found].sort();
}

/**
 * Copy the untracked files of `from` (the main checkout) that match `globs` into the same places in `to` (a new
 * worktree). Never a link (neither the file nor a folder on its way, in either checkout), never a file git tracks
 * (the worktree has its own), never a secret of the one list, nothing outside either checkout.
 */
export async function copyUntracked(from: string, to: string, globs: readonly string[]): Promise<CopyReport> {
  const report: CopyReport = { copied: [], skipped: [] };
  const usable = globs.filter((glob) => {
    const problem = globProblem(glob);
    if (problem) report.skipped.push({ path: glob, reason: problem });
    return !problem;
  });
  if (!usable.length) return report;
  const candidates = await matching(from, usable, report.skipped);
  if (!candidates.length) return report;
  const tracked = new Set(nulList((await git(from, ['ls-files', '-z', '--', ...candidates], { gitEnv: { GIT_LITERAL_PATHSPECS: '1' } })).stdout));
  for (const rel of candidates) {
    if (report.copied.length >= COPY_LIMITS.files) {
      report.skipped.push({ path: rel, reason: `over the limit of ${COPY_LIMITS.files} files` });
      continue;
    }
    if (tracked.has(rel)) continue;
    if (isSensitivePath(join(from, rel))) {
      report.skipped.push({ path: rel, reason: 'it holds secrets (the one list of secrets): copy it yourself if the worktree needs it' });
      continue;
    }
    const parent = posix.dirname(rel) === '.' ? '' : posix.dirname(rel);
    if ((parent && (await throughLink(from, parent))) || (await throughLink(to, parent))) {
      report.skipped.push({ path: rel, reason: 'a folder on its way is a link' });
      continue;
    }
    const problem = await copyOne(join(from, rel), join(to, rel), to);
    if (problem) report.skipped.push({ path: rel, reason: problem });
    else report.copied.push(rel);
  }
  return report;
}

async function copyOne(source: string, target: string, root: string): Promise<string | null> {
  const rel = relative(root, target);
  if (rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) return 'outside the worktree';
  let handle;
  try {
    handle = await open(source, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return 'cannot be read (or is a link)';
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return 'not a regular file';
    if (info.size > COPY_LIMITS.bytes) return `larger than ${COPY_LIMITS.bytes / 1024 / 1024} MiB`;
    const data = await handle.readFile();
    await mkdir(join(target, '..'), { recursive: true });
    // 'wx': never through a link or over a file the checkout already has.
    const out = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, info.mode & 0o777);
    try {
      await out.writeFile(data);
    } finally {
      await out.close();
    }
    return null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EEXIST' ? 'the worktree already has it' : `could not be copied: ${(error as Error).message}`;
  } finally {
    await handle.close();
  }
}
