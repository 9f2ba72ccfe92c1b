import { readFileSync } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { WorkspacePlace } from '#contract/environment';
import { writeFileAtomic } from '../platform/files';

/** What the user has said about one folder: trusted whole, or only the allow rules they approved in Deft. */
export interface FolderTrust {
  trusted: boolean;
  approvedRules: string[];
}

/** The user's answer about one of the workspace's own MCP servers, tied to its definition's fingerprint. */
export interface McpServerDecision {
  fingerprint: string;
  approved: boolean;
}

interface TrustFile {
  folders: Record<string, { trusted?: boolean; approvedRules?: string[]; mcpServers?: Record<string, McpServerDecision> }>;
}

/**
 * `~/.deft/trust.json`: which workspaces' own settings may widen what the agent does. A cloned repo can
 * ship `.deft/settings*.json` with `allow: ["*"]` and `defaultMode: yolo`; until the user trusts the
 * folder, those are not used (deny and ask rules always are). Allow rules the user added with "Always
 * allow" are recorded here too, so they work without trusting the whole folder. Folders are keyed by their
 * place's id: a local folder by its path, a remote one by `ssh://user@host:port/path`.
 */
export class TrustStore {
  readonly path: string;
  /** The folder's key in the file: its place's `id` (a remote folder's `ssh://…`, never a bare path). */
  private readonly workspace: string;

  /** `place` comes from `workspacePlace` (infra/environment/workspace-place.ts), the one place the key is derived. */
  constructor(home: string, place: Pick<WorkspacePlace, 'id'>) {
    this.path = join(home, 'trust.json');
    this.workspace = place.id;
  }

  /** A cheap fingerprint of the file, for the rule cache. */
  async version(): Promise<string> {
    return stat(this.path).then(
      (s) => `${s.mtimeMs}:${s.size}:${s.ino}`,
      () => '-',
    );
  }

  async get(): Promise<FolderTrust> {
    const entry = (await this.read()).folders[this.workspace];
    return {
      trusted: entry?.trusted === true,
      approvedRules: Array.isArray(entry?.approvedRules) ? entry.approvedRules.filter((r) => typeof r === 'string') : [],
    };
  }

  async trust(): Promise<void> {
    await this.update((entry) => ({ ...entry, trusted: true }));
  }

  async approveRule(rule: string): Promise<void> {
    await this.update((entry) => ({ ...entry, approvedRules: [...new Set([...(entry.approvedRules ?? []), rule])] }));
  }

  /** What the user answered about the workspace's MCP servers, by name (an answer counts only for the same fingerprint). */
  async mcpDecisions(): Promise<Record<string, McpServerDecision>> {
    const entry = (await this.read()).folders[this.workspace]?.mcpServers;
    const out: Record<string, McpServerDecision> = {};
    for (const [name, value] of Object.entries(entry && typeof entry === 'object' ? entry : {})) {
      if (value && typeof value.fingerprint === 'string' && typeof value.approved === 'boolean')
        out[name] = { fingerprint: value.fingerprint, approved: value.approved };
    }
    return out;
  }

  async decideMcpServer(name: string, decision: McpServerDecision): Promise<void> {
    await this.update((entry) => ({ ...entry, mcpServers: { ...(entry.mcpServers ?? {}), [name]: decision } }));
  }

  /** The user removed an allow rule they had approved: a copy the folder ships is no longer used in their name. */
  async withdrawRule(rule: string): Promise<void> {
    await this.update((entry) => ({ ...entry, approvedRules: (entry.approvedRules ?? []).filter((r) => r !== rule) }));
  }

  /** Every folder the file speaks of. */
  async list(): Promise<Array<{ path: string } & FolderTrust>> {
    const { folders } = await this.read();
    return Object.entries(folders).map(([path, entry]) => ({
      path,
      trusted: entry?.trusted === true,
      approvedRules: Array.isArray(entry?.approvedRules) ? entry.approvedRules.filter((r) => typeof r === 'string') : [],
    }));
  }

  /** Drop what the file says about a folder (its trust and approved rules); false when it said nothing. */
  async forget(path: string): Promise<boolean> {
    const file = await this.read();
    if (!Object.hasOwn(file.folders, path)) return false;
    delete file.folders[path];
    await this.write(file);
    return true;
  }

  private async update(change: (entry: TrustFile['folders'][string]) => TrustFile['folders'][string]): Promise<void> {
    const file = await this.read();
    file.folders[this.workspace] = change(file.folders[this.workspace] ?? {});
    await this.write(file);
  }

  private async write(file: TrustFile): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    await writeFileAtomic(this.path, JSON.stringify(file, null, 2) + '\n', 0o600);
  }

  /** Whether the folder is trusted, read now without waiting (for decisions made synchronously, e.g. which tools to offer). */
  trustedNow(): boolean {
    try {
      const raw = JSON.parse(readFileSync(this.path, 'utf8')) as TrustFile | null;
      return raw?.folders?.[this.workspace]?.trusted === true;
    } catch {
      return false;
    }
  }

  private async read(): Promise<TrustFile> {
    try {
      const raw = JSON.parse(await readFile(this.path, 'utf8')) as unknown;
      const folders = (raw as TrustFile | null)?.folders;
      if (folders && typeof folders === 'object' && !Array.isArray(folders)) return { folders: { ...folders } };
    } catch {
      // Missing or unreadable: nothing is trusted (a damaged file fails closed).
    }
    return { folders: {} };
  }
}
