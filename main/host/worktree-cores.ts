import { worktreeSchemas } from '#protocol/schemas/worktrees';
import type { DeftCore } from '#runtime/core';

/** A worktree's folder, as Deft's records give it (infra/worktrees `folderOf`), and its branch. */
export interface WorktreeFolder {
  path: string;
  branch: string;
}

/** What the map needs of a core (DeftCore has it). */
export interface ClosableCore {
  close(): Promise<void>;
}

export interface WorktreeCoresOptions<C extends ClosableCore = DeftCore> {
  /** The folder of worktree `name` from Deft's records; throws (a readable reason) for one it does not know. */
  resolve(name: string): Promise<WorktreeFolder>;
  /**
   * A core on that folder: a folder of its own for trust (it fails closed until trusted). A remote folder's worktree
   * needs a connection of its own first (its core's Environment is the worktree's folder there): a promise then.
   */
  create(path: string): C | Promise<C>;
  /** What to end after a core made here is closed (a remote worktree core's own connection). */
  release?(core: C): Promise<void>;
  /** Told once per core made (the host follows what waits there: WaitingBoard). */
  made?(core: C, worktree: { name: string; branch: string }): void;
}

/** A worktree's core, and which one it is (the page is told, by name). */
export interface OpenedWorktree<C extends ClosableCore = DeftCore> {
  core: C;
  name: string;
  branch: string;
}

/**
 * The web host's cores besides the main checkout's: one per worktree folder, made when a page first asks for it by
 * NAME and kept running while pages come and go — a turn running there goes on while a page looks at the main
 * checkout (or another worktree), and the other way round. A page never names a path: the name must pass the worktree
 * name rules, and the folder comes from Deft's records.
 */
export class WorktreeCores<C extends ClosableCore = DeftCore> {
  private readonly cores = new Map<string, Promise<C>>();

  constructor(private readonly options: WorktreeCoresOptions<C>) {}

  /** The core of worktree `name` (made on first use, then the same one). Refuses what is not a worktree name, or not a known worktree. */
  async open(name: unknown): Promise<OpenedWorktree<C>> {
    const parsed = worktreeSchemas().WorktreeViewName.safeParse(name);
    if (!parsed.success) throw new Error('that is not a worktree name (a page names a worktree, never a folder).');
    const folder = await this.options.resolve(parsed.data);
    // Looked up again after the wait: two pages asking at once get one core (one connection, for a remote folder's).
    let core = this.cores.get(folder.path);
    if (!core) {
      const making = Promise.resolve().then(() => this.options.create(folder.path));
      core = making.then((made) => {
        this.options.made?.(made, { name: parsed.data, branch: folder.branch });
        return made;
      });
      this.cores.set(folder.path, core);
      // One that could not be made is not kept: the next page's ask tries again.
      core.catch(() => this.cores.get(folder.path) === core && this.cores.delete(folder.path));
    }
    return { core: await core, name: parsed.data, branch: folder.branch };
  }

  /** How many worktree cores run now. */
  get size(): number {
    return this.cores.size;
  }

  /** Close every worktree core (the host stops, or now serves another folder whose worktrees these are not). */
  async closeAll(): Promise<void> {
    const all = [...this.cores.values()];
    this.cores.clear();
    await Promise.allSettled(
      all.map(async (made) => {
        const core = await made;
        await core.close().finally(() => this.options.release?.(core));
      }),
    );
  }
}
