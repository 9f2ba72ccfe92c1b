import { join } from 'node:path';
import type { WorkspacePlace } from '#contract/environment';
import type { PermissionMode, PermissionRules, RuleEdit, RuleProblem, RuleSource } from '#protocol';
import { SettingsEditError, editSettingsFile } from '#infra/settings/settings-edit';
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

  /** Change one settings file in place (infra/settings/settings-edit.ts: never a broken file, never outside the workspace). */
  private async editFile(source: RuleSource, change: (root: Record<string, unknown>) => void): Promise<void> {
    try {
      await editSettingsFile(this.places[source], source === 'user' ? null : this.place, change);
    } catch (error) {
      if (error instanceof SettingsEditError) throw new RuleEditError(error.message, error.code);
      throw error;
    }
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
