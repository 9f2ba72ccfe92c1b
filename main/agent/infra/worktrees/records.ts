import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path, { basename, dirname, resolve, sep } from 'node:path';
import { z } from 'zod';
import { worktreeSchemas } from '#protocol/schemas/worktrees';
import { builtOnce } from '#protocol/helpers/built-once';
import type { PathClass } from '#contract/environment';
import type { WorktreeMachine } from './machine';
import { nameProblem } from './names';

/**
 * What Deft keeps about one worktree it made, beside it: `<home>/worktrees/<repo>-<hash>/<name>.json`. Built the
 * first time a record is read (the worktree schemas are: protocol/schemas/worktrees.ts).
 */
const buildWorktreeRecord = () =>
  worktreeSchemas()
    .WorktreeInfo.pick({
      name: true,
      branch: true,
      baseBranch: true,
      baseCommit: true,
      repoRoot: true,
      path: true,
      createdAt: true,
    })
    .extend({
      /** Untracked files copied in by the `worktree.copy` globs: never committed, merged or applied. */
      copied: z.array(z.string()).default([]),
      /**
       * Its git dir (`<common>/worktrees/<id>`) and the repository's common git dir, as git reported them right after
       * `git worktree add` (before anything ran in it): the OS sandbox of an isolated sub-agent takes what it may write
       * for commits from here, never from the worktree's `.git` file, which a command there could rewrite.
       */
      gitDir: z.string().optional(),
      commonDir: z.string().optional(),
      /** The session whose isolated sub-agent it was made for: released with that session when it is deleted. */
      session: z.string().optional(),
      /**
       * The commit its branch had when its sub-agent finished (after Deft committed the sub-agent's changes), read from the
       * repository's refs: the one commit the parent's MergeAgentWork merges, whatever the branch's ref says later.
       */
      agentTip: z
        .string()
        .regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/)
        .optional(),
    });
export const worktreeRecordSchema: () => ReturnType<typeof buildWorktreeRecord> = builtOnce(buildWorktreeRecord);
export type WorktreeRecord = z.infer<ReturnType<typeof buildWorktreeRecord>>;

/** `<home>/worktrees`: every repository's worktrees. */
export function worktreesHome(home: string, paths: PathClass = path): string {
  return paths.join(home, 'worktrees');
}

/** `<home>/worktrees/<repo>-<hash>`: the worktrees of one repository (by its main checkout's path). */
export function repositoryWorktreesDir(home: string, repoRoot: string, paths: PathClass = path): string {
  const hash = createHash('sha256').update(repoRoot).digest('hex').slice(0, 10);
  const name =
    paths
      .basename(repoRoot)
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .slice(0, 40) || 'root';
  return paths.join(worktreesHome(home, paths), `${name}-${hash}`);
}

/** The records of one repository's worktrees, beside them on the machine they are on (`m`), under Deft's folder there. */
export class WorktreeRecords {
  readonly dir: string;

  constructor(
    private readonly m: WorktreeMachine,
    home: string,
    repoRoot: string,
  ) {
    this.dir = repositoryWorktreesDir(home, repoRoot, m.path);
  }

  pathOf(name: string): string {
    const problem = nameProblem(name);
    if (problem) throw new Error(problem);
    return this.m.path.join(this.dir, name);
  }

  private fileOf(name: string): string {
    return `${this.pathOf(name)}.json`;
  }

  async read(name: string): Promise<WorktreeRecord | null> {
    try {
      const text = await this.m.readText(this.fileOf(name));
      if (text === null) return null;
      const parsed = worktreeRecordSchema().safeParse(JSON.parse(text));
      return parsed.success && parsed.data.name === name ? parsed.data : null;
    } catch {
      return null;
    }
  }

  async write(record: WorktreeRecord): Promise<void> {
    await this.m.mkdir(this.dir, 0o700);
    await this.m.writeText(this.fileOf(record.name), JSON.stringify(record, null, 2) + '\n');
  }

  async remove(name: string): Promise<void> {
    await this.m.rm(this.fileOf(name));
  }

  async list(): Promise<WorktreeRecord[]> {
    let names: string[];
    try {
      names = (await this.m.readdir(this.dir)).map((e) => e.name);
    } catch {
      return [];
    }
    const records = await Promise.all(names.filter((n) => n.endsWith('.json') && !nameProblem(n.slice(0, -5))).map((n) => this.read(n.slice(0, -5))));
    return records.filter((r): r is WorktreeRecord => r !== null).sort((a, b) => a.createdAt - b.createdAt);
  }
}

/** The record of the Deft worktree `path` is (its top folder), or null when it is none. Reads files only. */
export async function worktreeAt(home: string, path: string): Promise<WorktreeRecord | null> {
  const full = resolve(path);
  const root = worktreesHome(existsSync(home) ? realpathSync(home) : resolve(home));
  const repoDir = dirname(full);
  if (dirname(repoDir) !== root || !full.startsWith(root + sep)) return null;
  const name = basename(full);
  if (nameProblem(name)) return null;
  try {
    const parsed = worktreeRecordSchema().safeParse(JSON.parse(await readFile(`${full}.json`, 'utf8')));
    return parsed.success && parsed.data.path === full ? parsed.data : null;
  } catch {
    return null;
  }
}
