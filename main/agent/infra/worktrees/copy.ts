import { isAbsolute, posix } from 'node:path';
import { picomatchPackage } from '#infra/platform/on-demand';
import { isSensitivePath } from '../policies/sensitive';
import type { WorktreeMachine } from './machine';
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
async function throughLink(m: WorktreeMachine, root: string, rel: string): Promise<boolean> {
  let at = root;
  const parts = rel.split('/').filter(Boolean);
  for (const [i, part] of parts.entries()) {
    at = m.path.join(at, part);
    const info = await m.look(at);
    if (!info) return false;
    if (info.kind === 'link' || (info.kind !== 'dir' && i < parts.length - 1)) return true;
  }
  return false;
}

/** Files under `root` matching one of `globs`, walked without following links, `.git` left out. */
async function matching(m: WorktreeMachine, root: string, globs: readonly string[], skipped: CopyReport['skipped']): Promise<string[]> {
  const found = new Set<string>();
  let visited = 0;
  for (const glob of globs) {
    const isMatch = picomatchPackage()(glob, { dot: true });
    const base = picomatchPackage().scan(glob).base;
    if (base && (await throughLink(m, root, base))) {
      skipped.push({ path: base, reason: 'a link: links are never followed' });
      continue;
    }
    const walk = async (relDir: string): Promise<void> => {
      const entries = await m.readdir(m.path.join(root, relDir)).catch(() => []);
      for (const entry of entries) {
        if (++visited > COPY_LIMITS.entries) return;
        const rel = relDir ? posix.join(relDir, entry.name) : entry.name;
        if (entry.name === '.git') continue;
        if (entry.type === 'directory') await walk(rel);
        else if (isMatch(rel)) {
          if (entry.type === 'symlink') skipped.push({ path: rel, reason: 'a link: links are never copied' });
          else if (entry.type === 'file') found.add(rel);
        }
      }
    };
    const start = await m.look(m.path.join(root, base));
    if (start?.kind === 'dir') await walk(base);
    else if (start && isMatch(base)) {
      if (start.kind === 'link') skipped.push({ path: base, reason: 'a link: links are never copied' });
      else if (start.kind === 'file') found.add(base);
    }
  }
  return [...found].sort();
}

/**
 * Copy the untracked files of `from` (the main checkout) that match `globs` into the same places in `to` (a new
 * worktree). Never a link (neither the file nor a folder on its way, in either checkout), never a file git tracks
 * (the worktree has its own), never a secret of the one list, nothing outside either checkout.
 */
export async function copyUntracked(m: WorktreeMachine, from: string, to: string, globs: readonly string[]): Promise<CopyReport> {
  const report: CopyReport = { copied: [], skipped: [] };
  const usable = globs.filter((glob) => {
    const problem = globProblem(glob);
    if (problem) report.skipped.push({ path: glob, reason: problem });
    return !problem;
  });
  if (!usable.length) return report;
  const candidates = await matching(m, from, usable, report.skipped);
  if (!candidates.length) return report;
  const tracked = new Set(nulList((await git(m, from, ['ls-files', '-z', '--', ...candidates], { gitEnv: { GIT_LITERAL_PATHSPECS: '1' } })).stdout));
  for (const rel of candidates) {
    if (report.copied.length >= COPY_LIMITS.files) {
      report.skipped.push({ path: rel, reason: `over the limit of ${COPY_LIMITS.files} files` });
      continue;
    }
    if (tracked.has(rel)) continue;
    if (isSensitivePath(m.path.join(from, rel))) {
      report.skipped.push({ path: rel, reason: 'it holds secrets (the one list of secrets): copy it yourself if the worktree needs it' });
      continue;
    }
    const parent = posix.dirname(rel) === '.' ? '' : posix.dirname(rel);
    if ((parent && (await throughLink(m, from, parent))) || (await throughLink(m, to, parent))) {
      report.skipped.push({ path: rel, reason: 'a folder on its way is a link' });
      continue;
    }
    const problem = await copyOne(m, m.path.join(from, rel), m.path.join(to, rel), to);
    if (problem) report.skipped.push({ path: rel, reason: problem });
    else report.copied.push(rel);
  }
  return report;
}

async function copyOne(m: WorktreeMachine, source: string, target: string, root: string): Promise<string | null> {
  const rel = m.path.relative(root, target);
  if (rel.startsWith('..') || m.path.isAbsolute(rel) || rel.split(m.path.sep).includes('..')) return 'outside the worktree';
  return m.copyNew(source, target, COPY_LIMITS.bytes);
}
