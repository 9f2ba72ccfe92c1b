import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { CommandError } from '#contract/errors';
import { worktreeAt } from '../worktrees/records';
import { type ForkCut, findForkCut, writeForkLog } from './fork';
import { LOG_FILE, META_FILE, Session, type SessionMeta } from './session';

/** The worktree a session's meta records. */
export type SessionWorktree = NonNullable<SessionMeta['worktree']>;

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

/** Session ids come from UIs; only this shape ever reaches a path. */
export function isValidSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}

/** `<home>/sessions/<name>-<hash>`: sessions are grouped by workspace. */
export function workspaceSessionsDir(home: string, workspace: string): string {
  const hash = createHash('sha256').update(workspace).digest('hex').slice(0, 10);
  const name =
    basename(workspace)
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .slice(0, 40) || 'root';
  return join(home, 'sessions', `${name}-${hash}`);
}

function newSessionId(now: number): string {
  const d = new Date(now);
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}-${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

/** The workspace a session ran in, looked for among every workspace's sessions (null when there is no such session). */
export async function findSessionWorkspace(home: string, id: string): Promise<string | null> {
  if (!isValidSessionId(id)) return null;
  const groups = await readdir(join(home, 'sessions')).catch(() => [] as string[]);
  for (const group of groups) {
    const meta = await readFile(join(home, 'sessions', group, id, META_FILE), 'utf8').catch(() => null);
    if (meta === null) continue;
    try {
      const workspace = (JSON.parse(meta) as Partial<SessionMeta>).workspace;
      if (typeof workspace === 'string') return workspace;
    } catch {
      // an unreadable meta file: keep looking
    }
  }
  return null;
}

/** The sessions of one workspace on disk. */
export class SessionStore {
  readonly root: string;

  constructor(
    private readonly home: string,
    private readonly workspace: string,
    private readonly now: () => number = Date.now,
    /**
     * The Deft worktree the workspace is, for a new session's meta. Default: a worktree on this machine (its record
     * under Deft's home here); a remote workspace's core passes its own (the record on that machine).
     */
    private readonly worktreeOf: () => Promise<SessionWorktree | null> = async () => {
      const tree = await worktreeAt(home, workspace);
      return tree ? { name: tree.name, branch: tree.branch, baseBranch: tree.baseBranch, repoRoot: tree.repoRoot } : null;
    },
  ) {
    this.root = workspaceSessionsDir(home, workspace);
  }

  dirOf(id: string): string {
    if (!isValidSessionId(id)) throw new Error(`"${id}" is not a session id.`);
    return join(this.root, id);
  }

  /** The ids of the sessions kept here (their folders' names), without reading any of them. */
  async ids(): Promise<string[]> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    return names.filter(isValidSessionId);
  }

  async list(): Promise<SessionMeta[]> {
    const metas = await Promise.all((await this.ids()).map((id) => this.readMeta(id)));
    return metas.filter((m): m is SessionMeta => m !== null).sort((a, b) => b.updatedAt - a.updatedAt);
  }

  async readMeta(id: string): Promise<SessionMeta | null> {
    try {
      const meta = JSON.parse(await readFile(join(this.dirOf(id), META_FILE), 'utf8')) as SessionMeta;
      return typeof meta.id === 'string' && typeof meta.updatedAt === 'number' ? meta : null;
    } catch {
      return null;
    }
  }

  async create(): Promise<Session> {
    await mkdir(this.root, { recursive: true, mode: 0o700 });
    await writeFile(join(this.root, 'workspace.json'), JSON.stringify({ path: this.workspace }) + '\n', { mode: 0o600 });
    const now = this.now();
    const id = newSessionId(now);
    const dir = this.dirOf(id);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const tree = await this.worktreeOf().catch(() => null);
    const worktree = tree ? { worktree: tree } : {};
    return Session.create(dir, { id, title: 'New session', workspace: this.workspace, createdAt: now, updatedAt: now, turns: 0, ...worktree }, this.now);
  }

  /**
   * A new session holding session `sourceId`'s conversation up to a point (fork.ts); the original is only read.
   * Resolves to the fork's id and where it was cut; throws a CommandError when it cannot be done.
   */
  async fork(sourceId: string, at: { atPrompt?: number; turnId?: string }, running: boolean): Promise<{ id: string; cut: ForkCut }> {
    const source = await this.readMeta(sourceId);
    if (!source) throw new CommandError('not_found', `There is no session "${sourceId}" in ${this.workspace}.`);
    const cut = await findForkCut(join(this.dirOf(sourceId), LOG_FILE), at, running);
    const now = this.now();
    const id = newSessionId(now);
    const dir = this.dirOf(id);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    try {
      await writeForkLog(join(this.dirOf(sourceId), LOG_FILE), join(dir, LOG_FILE), cut, { sessionId: id, workspace: this.workspace, createdAt: now });
      const { id: _id, createdAt: _c, updatedAt: _u, turns: _t, forkedFrom: _f, ...kept } = source;
      const meta: SessionMeta = {
        ...kept,
        id,
        createdAt: now,
        updatedAt: now,
        turns: cut.turns,
        forkedFrom: { sessionId: sourceId, atPrompt: cut.atPrompt, title: source.title },
      };
      await writeFile(join(dir, META_FILE), JSON.stringify(meta, null, 2) + '\n', { mode: 0o600 });
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
    return { id, cut };
  }

  async load(id: string): Promise<{ session: Session; problems: string[] } | null> {
    const meta = await this.readMeta(id);
    if (!meta) return null;
    return Session.load(this.dirOf(id), meta, this.now);
  }

  async delete(id: string): Promise<void> {
    await rm(this.dirOf(id), { recursive: true, force: true });
  }
}
