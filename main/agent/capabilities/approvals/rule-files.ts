import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { WorkspacePlace } from '#contract/environment';
import type { PermissionMode, PermissionRules, RuleEdit, RuleProblem, RuleSource } from '#protocol';
import { isWithin } from '#infra/policies/path-guard';
import { writeFileAtomic } from '#infra/platform/files';
import { type PermissionRule, type RuleDecision, parseRule } from './rules';
import { type FolderTrust, TrustStore } from '#infra/settings/trust';
import { type SettingsFile, onThisMachine, readSettingsFile, settingsFingerprint } from '#infra/settings/settings-file';
import { networkRule } from '#infra/sandbox/settings';

export type RuleFilePaths = Record<RuleSource, string>;

export interface LoadedRules {
  rules: PermissionRule[];
  problems: RuleProblem[];
  /** `permissions.defaultMode` (the local file wins over the project file, which wins over the user file). */
  defaultMode?: PermissionMode;
  /** The file `defaultMode` comes from. */
  defaultModeSource?: RuleSource;
  /** Allow rules of the workspace's own files not used while the folder is untrusted. */
  ignoredRules: PermissionRule[];
  files: RuleFilePaths;
  /** Whether the workspace is trusted, and what its own settings files ask for that is not used until it is. */
  trust: { trusted: boolean; ignored: string[] };
}

/**
 * `~/.deft/settings.json` (user, on this machine), `.deft/settings.json` (project, shared) and
 * `.deft/settings.local.json` (project, personal), the last two on the workspace's machine (its environment).
 */
export function ruleFiles(home: string, place: Pick<WorkspacePlace, 'path' | 'environment'>): Record<RuleSource, SettingsFile> {
  const { path: workspace, environment } = place;
  const there = environment.path.join;
  return {
    user: onThisMachine(join(home, 'settings.json')),
    project: { path: there(workspace, '.deft', 'settings.json'), environment },
    local: { path: there(workspace, '.deft', 'settings.local.json'), environment },
  };
}

const DECISIONS: RuleDecision[] = ['deny', 'ask', 'allow'];
// Other agents' names for the modes, so their settings carry over.
const MODE_NAMES: Record<string, PermissionMode> = {
  ask: 'ask',
  default: 'ask',
  manual: 'ask',
  'accept-edits': 'accept-edits',
  acceptEdits: 'accept-edits',
  yolo: 'yolo',
  bypassPermissions: 'yolo',
};

interface FileResult {
  rules: PermissionRule[];
  problems: RuleProblem[];
  defaultMode?: PermissionMode;
}

async function readSettings(file: SettingsFile): Promise<{ raw: unknown; problem?: string } | null> {
  const read = await readSettingsFile(file);
  if ('missing' in read) return null;
  if ('notFile' in read) return { raw: undefined, problem: 'is not a regular file (a pipe, device or folder); its rules are not used' };
  if ('error' in read) return { raw: undefined, problem: `cannot be read (${read.error}); its rules are not used` };
  const { text } = read;
  if (!text.trim()) return { raw: {} };
  try {
    return { raw: JSON.parse(text) as unknown };
  } catch (error) {
    return { raw: undefined, problem: `is not valid JSON (${(error as Error).message}); none of its permission rules are used until it is fixed` };
  }
}

/** Rules and problems of one settings file (read on its machine). */
export async function loadRuleFile(file: SettingsFile, source: RuleSource): Promise<FileResult> {
  const { path } = file;
  const read = await readSettings(file);
  if (!read) return { rules: [], problems: [] };
  if (read.problem) return { rules: [], problems: [{ file: path, message: `${path} ${read.problem}` }] };
  const root = read.raw;
  if (!root || typeof root !== 'object' || Array.isArray(root)) return { rules: [], problems: [{ file: path, message: `${path} must hold a JSON object` }] };
  const permissions = (root as Record<string, unknown>).permissions;
  if (permissions === undefined) return { rules: [], problems: [] };
  if (!permissions || typeof permissions !== 'object' || Array.isArray(permissions)) {
    return { rules: [], problems: [{ file: path, message: `"permissions" in ${path} must be an object: {"allow": [...], "ask": [...], "deny": [...]}` }] };
  }
  const result: FileResult = { rules: [], problems: [] };
  const section = permissions as Record<string, unknown>;
  for (const decision of DECISIONS) {
    const list = section[decision];
    if (list === undefined) continue;
    if (!Array.isArray(list)) {
      result.problems.push({ file: path, message: `"permissions.${decision}" in ${path} must be a list of rules such as ["Bash(npm test)"]` });
      continue;
    }
    for (const entry of list) {
      const parsed = parseRule(entry);
      if (parsed.ok) result.rules.push({ ...parsed.rule, decision, source, file: path });
      else
        result.problems.push({
          file: path,
          rule: typeof entry === 'string' ? entry : JSON.stringify(entry),
          message: `Invalid ${decision} rule in ${path}: ${parsed.message}`,
        });
    }
  }
  const mode = section.defaultMode;
  if (mode !== undefined) {
    const known = typeof mode === 'string' ? MODE_NAMES[mode] : undefined;
    if (known) result.defaultMode = known;
    else
      result.problems.push({
        file: path,
        message: `"permissions.defaultMode" in ${path} must be "ask", "accept-edits" or "yolo", not ${JSON.stringify(mode)}`,
      });
  }
  return result;
}

/**
 * The three rule files, merged, re-read only when one of them changes. The workspace's two are read and written
 * on its machine (a remote folder's over its environment); trust is looked up under the place's id.
 */
export class RuleStore {
  readonly files: RuleFilePaths;
  private readonly places: Record<RuleSource, SettingsFile>;
  private cache: { key: string; loaded: LoadedRules } | null = null;
  private published: string | null = null;

  readonly trust: TrustStore;

  constructor(
    home: string,
    private readonly place: WorkspacePlace,
  ) {
    this.places = ruleFiles(home, place);
    this.files = { user: this.places.user.path, project: this.places.project.path, local: this.places.local.path };
    this.trust = new TrustStore(home, place);
  }

  /** The rules in force; `changed` is true when they differ from the last load. */
  async load(): Promise<{ loaded: LoadedRules; changed: boolean }> {
    const sources = Object.entries(this.places) as Array<[RuleSource, SettingsFile]>;
    const fingerprints = await Promise.all(sources.map(([, file]) => settingsFingerprint(file)));
    const key = [...fingerprints, await this.trust.version()].join('|');
    if (this.cache?.key === key) return { loaded: this.cache.loaded, changed: false };
    const results = await Promise.all(sources.map(([source, file]) => loadRuleFile(file, source)));
    const trust = await this.trust.get();
    const ignoredRules: PermissionRule[] = [];
    const ignored = trust.trusted
      ? []
      : results.flatMap((r, i) => (sources[i]![0] === 'user' ? [] : untrustedWidening(r, sources[i]![1].path, trust, ignoredRules)));
    const modeAt = [2, 1, 0].find((i) => results[i]?.defaultMode !== undefined);
    const defaultMode = modeAt === undefined ? undefined : results[modeAt]!.defaultMode;
    const loaded: LoadedRules = {
      rules: results.flatMap((r) => r.rules),
      problems: results.flatMap((r) => r.problems),
      ...(defaultMode && modeAt !== undefined ? { defaultMode, defaultModeSource: sources[modeAt]![0] } : {}),
      ignoredRules,
      files: this.files,
      trust: { trusted: trust.trusted, ignored },
    };
    const json = JSON.stringify(publicRules(loaded));
    const changed = this.published !== null && json !== this.published;
    this.published = json;
    this.cache = { key, loaded };
    return { loaded, changed };
  }

  /** Add a host to `sandbox.network.allowedDomains` in `.deft/settings.local.json` (the user chose it: used without trusting the folder). */
  async addLocalAllowedDomain(entry: string): Promise<void> {
    const path = this.files.local;
    await this.editFile('local', (root) => {
      const sandbox = (root.sandbox ?? {}) as Record<string, unknown>;
      if (!sandbox || typeof sandbox !== 'object' || Array.isArray(sandbox)) throw new RuleEditError(`"sandbox" in ${path} must be an object.`);
      const network = (sandbox.network ?? {}) as Record<string, unknown>;
      if (!network || typeof network !== 'object' || Array.isArray(network)) throw new RuleEditError(`"sandbox.network" in ${path} must be an object.`);
      const domains = Array.isArray(network.allowedDomains) ? network.allowedDomains : [];
      if (!domains.includes(entry)) domains.push(entry);
      root.sandbox = { ...sandbox, network: { ...network, allowedDomains: domains } };
    });
    await this.trust.approveRule(networkRule(entry));
    this.cache = null;
  }

  /** Add an allow rule to `.deft/settings.local.json` ("Always allow"), keeping everything else in the file. */
  async addLocalAllowRule(rule: string): Promise<void> {
    await this.edit({ action: 'add', source: 'local', decision: 'allow', rule });
  }

  /**
   * Add a rule to, or remove one from, one settings file, keeping everything else in it; written
   * atomically. Folder trust holds: an allow rule the user adds to the workspace's files is approved
   * on its own (as with "Always allow") — never the folder's other rules — and removing one withdraws
   * that approval, so a copy the repository ships is not used in the user's name.
   */
  async edit(change: RuleEdit): Promise<void> {
    const parsed = parseRule(change.rule);
    if (!parsed.ok) throw new RuleEditError(`"${change.rule}" is not a rule: ${parsed.message}.`);
    const rule = parsed.rule.pattern;
    const path = this.files[change.source];
    await this.editFile(change.source, (root) => {
      const permissions = sectionOf(root, path);
      const list = permissions[change.decision] ?? [];
      if (!Array.isArray(list)) throw new RuleEditError(`"permissions.${change.decision}" in ${path} must be a list; fix the file, then try again.`);
      if (change.action === 'add') {
        if (!list.includes(rule)) list.push(rule);
      } else {
        const at = list.indexOf(rule);
        if (at < 0) throw new RuleEditError(`${path} has no ${change.decision} rule "${rule}".`, 'not_found');
        list.splice(at, 1);
      }
      permissions[change.decision] = list;
      root.permissions = permissions;
    });
    if (change.source !== 'user' && change.decision === 'allow') {
      if (change.action === 'add') await this.trust.approveRule(rule);
      else await this.trust.withdrawRule(rule);
    }
    this.cache = null;
  }

  /** `permissions.defaultMode` in the user's settings file (null removes it). */
  async setUserDefaultMode(mode: PermissionMode | null): Promise<void> {
    await this.editFile('user', (root) => {
      const permissions = sectionOf(root, this.files.user);
      if (mode) permissions.defaultMode = mode;
      else delete permissions.defaultMode;
      root.permissions = permissions;
    });
    this.cache = null;
  }

  /**
   * Change one settings file in place. A file that does not parse is never overwritten (the user would
   * lose what they wrote); a workspace file is written only inside the workspace, never through a
   * symlinked `.deft/` folder or file a cloned repository could point at something else.
   */
  private async editFile(source: RuleSource, change: (root: Record<string, unknown>) => void): Promise<void> {
    const file = this.places[source];
    const { path } = file;
    if (source !== 'user') await this.checkInsideWorkspace(file);
    const read = await readSettings(file);
    if (read?.problem) throw new RuleEditError(`${path} ${read.problem}. Fix it by hand first; Deft does not overwrite it.`);
    const root = read?.raw ?? {};
    if (!root || typeof root !== 'object' || Array.isArray(root)) throw new RuleEditError(`${path} must hold a JSON object; fix it, then try again.`);
    change(root as Record<string, unknown>);
    const text = JSON.stringify(root, null, 2) + '\n';
    if (source === 'user') {
      await mkdir(dirname(path), { recursive: true });
      await writeFileAtomic(path, text, 0o600);
      return;
    }
    // The workspace's file, on the workspace's machine: through its environment (a remote folder's over SSH).
    const { environment } = file;
    await environment.mkdir(environment.path.dirname(path), { recursive: true });
    await this.checkInsideWorkspace(file);
    await environment.replaceFile(path, text);
  }

  private async checkInsideWorkspace({ path, environment }: SettingsFile): Promise<void> {
    const workspace = await environment.realpath(this.place.path);
    const parent = environment.path.dirname(path);
    for (const target of [parent, path]) {
      const link = await environment.lstat(target).catch(() => null);
      if (link?.isSymbolicLink())
        throw new RuleEditError(
          `${target} is a symbolic link; Deft does not write settings through it. Replace it with a real ${target === path ? 'file' : 'folder'} to edit rules here.`,
        );
    }
    const folder = await environment.realpath(parent).catch(() => null);
    if (folder && !isWithin(folder, workspace)) throw new RuleEditError(`${parent} resolves outside the workspace; Deft does not write settings there.`);
  }
}

/** A rule edit that cannot be made, with what to do about it. */
export class RuleEditError extends Error {
  constructor(
    message: string,
    readonly code: 'invalid_request' | 'not_found' = 'invalid_request',
  ) {
    super(message);
  }
}

function sectionOf(root: Record<string, unknown>, path: string): Record<string, unknown> {
  const permissions = root.permissions ?? {};
  if (!permissions || typeof permissions !== 'object' || Array.isArray(permissions))
    throw new RuleEditError(`"permissions" in ${path} must be an object; fix it, then try again.`);
  return permissions as Record<string, unknown>;
}

/**
 * In a folder the user has not trusted, its own settings files may narrow what the agent does but not
 * widen it: allow rules the user did not approve in Deft, and a default mode beyond "ask", are removed
 * from `result` (in place) and described.
 */
function untrustedWidening(result: FileResult, file: string, trust: FolderTrust, ignoredRules: PermissionRule[]): string[] {
  const ignored: string[] = [];
  result.rules = result.rules.filter((rule) => {
    if (rule.decision !== 'allow' || trust.approvedRules.includes(rule.pattern)) return true;
    ignored.push(`allow ${rule.pattern} (${file})`);
    ignoredRules.push(rule);
    return false;
  });
  if (result.defaultMode && result.defaultMode !== 'ask') {
    ignored.push(`defaultMode ${result.defaultMode} (${file})`);
    delete result.defaultMode;
  }
  return ignored;
}

/** What the UI sees of loaded rules. */
export function publicRules(loaded: LoadedRules): PermissionRules {
  const info = (r: PermissionRule) => ({ decision: r.decision, pattern: r.pattern, source: r.source as RuleSource, file: r.file ?? '' });
  return {
    rules: [...loaded.rules.map(info), ...loaded.ignoredRules.map((r) => ({ ...info(r), ignored: true }))],
    problems: loaded.problems,
    files: loaded.files,
    trust: loaded.trust,
    ...(loaded.defaultMode && loaded.defaultModeSource ? { defaultMode: { mode: loaded.defaultMode, source: loaded.defaultModeSource } } : {}),
  };
}
