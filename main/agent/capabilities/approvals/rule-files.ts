import { mkdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { PermissionMode, PermissionRules, RuleProblem, RuleSource } from '../../../../protocol';
import { writeFileAtomic } from '../../infra/platform/files';
import { type PermissionRule, type RuleDecision, parseRule } from './rules';
import { type FolderTrust, TrustStore } from '../../infra/settings/trust';
import { networkRule } from '../../infra/sandbox/settings';

export type RuleFilePaths = Record<RuleSource, string>;

export interface LoadedRules {
  rules: PermissionRule[];
  problems: RuleProblem[];
  /** `permissions.defaultMode` (the local file wins over the project file, which wins over the user file). */
  defaultMode?: PermissionMode;
  files: RuleFilePaths;
  /** Whether the workspace is trusted, and what its own settings files ask for that is not used until it is. */
  trust: { trusted: boolean; ignored: string[] };
}

/** `~/.deft/settings.json` (user), `.deft/settings.json` (project, shared) and `.deft/settings.local.json` (project, personal). */
export function ruleFilePaths(home: string, workspace: string): RuleFilePaths {
  return { user: join(home, 'settings.json'), project: join(workspace, '.deft', 'settings.json'), local: join(workspace, '.deft', 'settings.local.json') };
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

async function readSettings(path: string): Promise<{ raw: unknown; problem?: string } | null> {
  let text: string;
  try {
    // A FIFO in a cloned repo's .deft/ would block the read, and with it every tool call, forever.
    if (!(await stat(path)).isFile()) return { raw: undefined, problem: 'is not a regular file (a pipe, device or folder); its rules are not used' };
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    return { raw: undefined, problem: `cannot be read (${code ?? (error as Error).message}); its rules are not used` };
  }
  if (!text.trim()) return { raw: {} };
  try {
    return { raw: JSON.parse(text) as unknown };
  } catch (error) {
    return { raw: undefined, problem: `is not valid JSON (${(error as Error).message}); none of its permission rules are used until it is fixed` };
  }
}

/** Rules and problems of one settings file. */
export async function loadRuleFile(path: string, source: RuleSource): Promise<FileResult> {
  const read = await readSettings(path);
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
      else result.problems.push({ file: path, rule: typeof entry === 'string' ? entry : JSON.stringify(entry), message: `Invalid ${decision} rule in ${path}: ${parsed.message}` });
    }
  }
  const mode = section.defaultMode;
  if (mode !== undefined) {
    const known = typeof mode === 'string' ? MODE_NAMES[mode] : undefined;
    if (known) result.defaultMode = known;
    else result.problems.push({ file: path, message: `"permissions.defaultMode" in ${path} must be "ask", "accept-edits" or "yolo", not ${JSON.stringify(mode)}` });
  }
  return result;
}

/** The three rule files, merged, re-read only when one of them changes on disk. */
export class RuleStore {
  readonly files: RuleFilePaths;
  private cache: { key: string; loaded: LoadedRules } | null = null;
  private published: string | null = null;

  readonly trust: TrustStore;

  constructor(home: string, workspace: string) {
    this.files = ruleFilePaths(home, workspace);
    this.trust = new TrustStore(home, workspace);
  }

  /** The rules in force; `changed` is true when they differ from the last load. */
  async load(): Promise<{ loaded: LoadedRules; changed: boolean }> {
    const sources = Object.entries(this.files) as Array<[RuleSource, string]>;
    const fingerprints = await Promise.all(sources.map(async ([, path]) => stat(path).then((s) => `${s.mtimeMs}:${s.size}:${s.ino}`, () => '-')));
    const key = [...fingerprints, await this.trust.version()].join('|');
    if (this.cache?.key === key) return { loaded: this.cache.loaded, changed: false };
    const results = await Promise.all(sources.map(([source, path]) => loadRuleFile(path, source)));
    const trust = await this.trust.get();
    const ignored = trust.trusted ? [] : results.flatMap((r, i) => (sources[i]![0] === 'user' ? [] : untrustedWidening(r, sources[i]![1], trust)));
    const defaultMode = results[2]?.defaultMode ?? results[1]?.defaultMode ?? results[0]?.defaultMode;
    const loaded: LoadedRules = {
      rules: results.flatMap((r) => r.rules),
      problems: results.flatMap((r) => r.problems),
      ...(defaultMode ? { defaultMode } : {}),
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
    const { path, root } = await this.localSettings();
    const sandbox = (root.sandbox ?? {}) as Record<string, unknown>;
    const network = (sandbox.network ?? {}) as Record<string, unknown>;
    if (typeof sandbox !== 'object' || typeof network !== 'object' || Array.isArray(sandbox) || Array.isArray(network)) throw new Error(`"sandbox.network" in ${path} must be an object.`);
    const domains = Array.isArray(network.allowedDomains) ? network.allowedDomains : [];
    if (!domains.includes(entry)) domains.push(entry);
    await this.trust.approveRule(networkRule(entry));
    root.sandbox = { ...sandbox, network: { ...network, allowedDomains: domains } };
    await mkdir(dirname(path), { recursive: true });
    await writeFileAtomic(path, JSON.stringify(root, null, 2) + '\n', 0o644);
  }

  private async localSettings(): Promise<{ path: string; root: Record<string, unknown> }> {
    const path = this.files.local;
    const read = await readSettings(path);
    if (read?.problem) throw new Error(`${path} ${read.problem}`);
    const root = (read?.raw ?? {}) as Record<string, unknown>;
    if (!root || typeof root !== 'object' || Array.isArray(root)) throw new Error(`${path} must hold a JSON object; fix it, then choose "Always allow" again.`);
    return { path, root };
  }

  /** Add an allow rule to `.deft/settings.local.json`, keeping everything else in the file. */
  async addLocalAllowRule(rule: string): Promise<void> {
    const { path, root } = await this.localSettings();
    const permissions = (root.permissions ?? {}) as Record<string, unknown>;
    if (!permissions || typeof permissions !== 'object' || Array.isArray(permissions)) throw new Error(`"permissions" in ${path} must be an object.`);
    const allow = permissions.allow ?? [];
    if (!Array.isArray(allow)) throw new Error(`"permissions.allow" in ${path} must be a list.`);
    if (!allow.includes(rule)) allow.push(rule);
    // The user chose this rule: it is used even where the folder's own rules are not trusted.
    await this.trust.approveRule(rule);
    root.permissions = { ...permissions, allow };
    await mkdir(dirname(path), { recursive: true });
    await writeFileAtomic(path, JSON.stringify(root, null, 2) + '\n', 0o644);
    this.cache = null;
  }
}

/**
 * In a folder the user has not trusted, its own settings files may narrow what the agent does but not
 * widen it: allow rules the user did not approve in Deft, and a default mode beyond "ask", are removed
 * from `result` (in place) and described.
 */
function untrustedWidening(result: FileResult, file: string, trust: FolderTrust): string[] {
  const ignored: string[] = [];
  result.rules = result.rules.filter((rule) => {
    if (rule.decision !== 'allow' || trust.approvedRules.includes(rule.pattern)) return true;
    ignored.push(`allow ${rule.pattern} (${file})`);
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
  return {
    rules: loaded.rules.map((r) => ({ decision: r.decision, pattern: r.pattern, source: r.source as RuleSource, file: r.file ?? '' })),
    problems: loaded.problems,
    files: loaded.files,
    trust: loaded.trust,
  };
}
