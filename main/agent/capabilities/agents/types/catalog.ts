import { homedir } from 'node:os';
import { join } from 'node:path';
import type { AgentTypeSource, AgentTypeSummary, SkippedAgentType } from '#protocol';
import type { Environment, WorkspacePlace } from '#contract/environment';
import { localEnvironment } from '#infra/environment/local/local-environment';
import { workspacePlace } from '#infra/environment/workspace-place';
import { enabledPluginParts } from '#infra/plugins/enabled';
import { TrustStore } from '#infra/settings/trust';
import { type AgentType, BUILTIN_TYPES } from './builtin';
import { parseDefinition } from './definition';

const MAX_FILE_BYTES = 256 * 1024;
const MAX_FILES_PER_FOLDER = 200;

export interface AgentTypeSnapshot {
  types: readonly AgentType[];
  skipped: readonly SkippedAgentType[];
  /** Changes whenever the types or the skipped files change. */
  signature: string;
}

interface Folder {
  path: string;
  source: Exclude<AgentTypeSource, 'builtin'>;
  /** The machine it is on: the workspace's (a remote folder's are read there), the user's on this one. */
  environment: Environment;
}

/**
 * The sub-agent types: the built-ins, then definitions in the workspace (`.deft/agents/`, `.claude/agents/`)
 * and the user's (`~/.deft/agents/`, `~/.claude/agents/`), a name found earlier winning. A workspace's own
 * folders are read only once the user trusts it (trust under its place's id): a cloned repository's definition never
 * runs before. The workspace's folders are read on its machine (`place.environment`).
 */
export class AgentTypeCatalog {
  private current: AgentTypeSnapshot = { types: BUILTIN_TYPES, skipped: [], signature: '' };
  private scanning: Promise<AgentTypeSnapshot> | null = null;
  private readonly trust: TrustStore;
  private readonly place: WorkspacePlace;

  /** `places.workspace`: the workspace's place; a bare path is a local folder. */
  constructor(
    private readonly places: { workspace: WorkspacePlace | string; home: string; userHome?: string },
    private readonly onChange?: (snapshot: AgentTypeSnapshot) => void,
  ) {
    this.place = typeof places.workspace === 'string' ? workspacePlace(places.workspace) : places.workspace;
    this.trust = new TrustStore(places.home, this.place);
  }

  /** The types as last read (built-ins only before the first scan). */
  get snapshot(): AgentTypeSnapshot {
    return this.current;
  }

  find(name: string): AgentType | undefined {
    return this.current.types.find((t) => t.name === name);
  }

  /** Read the folders again (one scan at a time); tells `onChange` when something changed. */
  refresh(): Promise<AgentTypeSnapshot> {
    this.scanning ??= this.scan().finally(() => (this.scanning = null));
    return this.scanning;
  }

  summaries(): AgentTypeSummary[] {
    return this.current.types.map(({ prompt: _prompt, ...summary }) => summary);
  }

  /** Where definitions are read from, in order (a name found earlier wins); enabled plugins' `agents/` last, as the user's own. */
  folders(pluginDirs: readonly string[] = []): Folder[] {
    const { home } = this.places;
    const { path: workspace, environment } = this.place;
    const there = environment.path.join;
    const here = localEnvironment();
    const userHome = this.places.userHome ?? homedir();
    return [
      { path: there(workspace, '.deft', 'agents'), source: 'workspace', environment },
      { path: there(workspace, '.claude', 'agents'), source: 'workspace', environment },
      { path: join(home, 'agents'), source: 'user', environment: here },
      { path: join(userHome, '.claude', 'agents'), source: 'user', environment: here },
      ...pluginDirs.map((path) => ({ path, source: 'user' as const, environment: here })),
    ];
  }

  private async scan(): Promise<AgentTypeSnapshot> {
    const trusted = (await this.trust.get().catch(() => ({ trusted: false }))).trusted;
    const { plugins } = await enabledPluginParts(this.places.home);
    const folders = this.folders(plugins.flatMap((p) => p.agentDirs));
    const types: AgentType[] = [...BUILTIN_TYPES];
    const skipped: SkippedAgentType[] = [];
    for (const folder of folders) {
      const files = await markdownFiles(folder);
      if (folder.source === 'workspace' && !trusted) {
        for (const file of files)
          skipped.push({
            file,
            source: folder.source,
            reason: 'the workspace is not trusted yet: its own sub-agent definitions are used once you trust the folder',
          });
        continue;
      }
      for (const file of files.slice(0, MAX_FILES_PER_FOLDER)) {
        try {
          const { type, ignored } = parseDefinition(await readDefinition(folder, file), file, folder.source);
          const clash = types.find((t) => t.name === type.name);
          if (clash?.source === 'builtin') throw new Error(`"${type.name}" is a built-in type and cannot be replaced`);
          if (clash) throw new Error(`"${type.name}" is already defined by ${clash.file}`);
          types.push(type);
          if (ignored.length) skipped.push({ file, source: folder.source, reason: `used, but ignored: ${ignored.join('; ')}` });
        } catch (error) {
          skipped.push({ file, source: folder.source, reason: (error as Error).message });
        }
      }
      if (files.length > MAX_FILES_PER_FOLDER)
        skipped.push({ file: folder.path, source: folder.source, reason: `only the first ${MAX_FILES_PER_FOLDER} definitions are read` });
    }
    const signature = JSON.stringify([
      types.map(({ name, description, tools, model, file }) => [name, description, tools, model, file]),
      skipped,
      types.map((t) => t.prompt.length),
    ]);
    const changed = signature !== this.current.signature;
    this.current = { types, skipped, signature };
    if (changed) this.onChange?.(this.current);
    return this.current;
  }
}

async function markdownFiles({ path: dir, environment }: Folder): Promise<string[]> {
  try {
    const entries = await environment.readdir(dir);
    return entries
      .filter((e) => (e.type === 'file' || e.type === 'symlink') && e.name.toLowerCase().endsWith('.md'))
      .map((e) => environment.path.join(dir, e.name))
      .sort();
  } catch {
    return [];
  }
}

/** The file's text; a workspace's definition must be a plain file (a link could hand the model another file, a secret). */
async function readDefinition({ source, environment }: Folder, file: string): Promise<string> {
  const info = await environment.lstat(file);
  if (info.isSymbolicLink() && source === 'workspace') throw new Error('it is a symbolic link: a workspace definition must be a plain file');
  if (!(await environment.stat(file)).isFile()) throw new Error('it is not a regular file');
  if (info.size > MAX_FILE_BYTES) throw new Error(`it is larger than ${MAX_FILE_BYTES / 1024} KiB`);
  const text = await environment.readText(file);
  if (text.length > MAX_FILE_BYTES) throw new Error(`it is larger than ${MAX_FILE_BYTES / 1024} KiB`);
  return text;
}
