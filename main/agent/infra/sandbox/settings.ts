import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { WorkspacePlace } from '#contract/environment';
import { workspacePlace } from '../environment/workspace-place';
import { type SettingsFile, onThisMachine, readSettingsFile, settingsFingerprint } from '../settings/settings-file';
import { TrustStore } from '../settings/trust';
import { ADDRESS_CLASSES, type AddressClass } from '../net/address-policy';
import { parseDomainPattern } from './domains';

/**
 * The `sandbox` section of the three settings files, in the shape other agents use so users' files
 * carry over:
 * `{"enabled": true, "autoAllow": true, "filesystem": {"allowWrite": [], "denyRead": [], "denyWrite": []},
 *   "network": {"allowedDomains": [], "allowAddressClasses": []}}`.
 */
export interface SandboxSettings {
  enabled: boolean;
  /** Sandboxed commands run without asking in accept-edits mode (the OS holds the line). */
  autoAllow: boolean;
  allowWrite: string[];
  denyRead: string[];
  denyWrite: string[];
  allowedDomains: string[];
  /** Non-public address classes an allowed name may lead to (loopback, private, link-local); none by default. */
  allowAddressClasses: AddressClass[];
  /** Entries that could not be used, with the file. */
  problems: string[];
  /** What an untrusted workspace's own files asked for that widens the sandbox (not used until trusted). */
  ignored: string[];
}

type Source = 'user' | 'project' | 'local';

interface FileSection {
  enabled?: boolean;
  autoAllow?: boolean;
  allowWrite: string[];
  denyRead: string[];
  denyWrite: string[];
  allowedDomains: string[];
  allowAddressClasses: AddressClass[];
}

/** The user's file on this machine; the workspace's two on its machine (a remote folder's read there). */
export function sandboxSettingsFiles(home: string, place: Pick<WorkspacePlace, 'path' | 'environment'>): Record<Source, SettingsFile> {
  const { path: workspace, environment } = place;
  const there = environment.path.join;
  return {
    user: onThisMachine(join(home, 'settings.json')),
    project: { path: there(workspace, '.deft', 'settings.json'), environment },
    local: { path: there(workspace, '.deft', 'settings.local.json'), environment },
  };
}

/** `~/x` → the user's home; a relative path → against the workspace. */
export function settingsPath(path: string, workspace: string, userHome = homedir()): string {
  if (/^~(?=\/|$)/.test(path)) return resolve(userHome + path.slice(1));
  return isAbsolute(path) ? resolve(path) : resolve(workspace, path);
}

async function readJson(file: SettingsFile): Promise<{ value?: unknown; problem?: string }> {
  const { path } = file;
  const read = await readSettingsFile(file);
  if ('missing' in read) return {};
  if ('notFile' in read) return { problem: `${path} is not a regular file; its sandbox settings are not used` };
  if ('error' in read) return { problem: `${path} cannot be read as JSON (${read.error}); its sandbox settings are not used` };
  try {
    return { value: read.text.trim() ? (JSON.parse(read.text) as unknown) : {} };
  } catch (error) {
    return { problem: `${path} cannot be read as JSON (${(error as Error).message}); its sandbox settings are not used` };
  }
}

function stringList(value: unknown, name: string, file: string, problems: string[]): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !v.trim())) {
    problems.push(`"sandbox.${name}" in ${file} must be a list of non-empty strings`);
    return [];
  }
  return value.map((v: string) => v.trim());
}

function bool(value: unknown, name: string, file: string, problems: string[]): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') {
    problems.push(`"sandbox.${name}" in ${file} must be true or false`);
    return undefined;
  }
  return value;
}

function section(raw: unknown, file: string, workspace: string, problems: string[]): FileSection {
  const empty: FileSection = { allowWrite: [], denyRead: [], denyWrite: [], allowedDomains: [], allowAddressClasses: [] };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return empty;
  const sandbox = (raw as Record<string, unknown>).sandbox;
  if (sandbox === undefined) return empty;
  if (!sandbox || typeof sandbox !== 'object' || Array.isArray(sandbox)) {
    problems.push(`"sandbox" in ${file} must be an object`);
    return empty;
  }
  const s = sandbox as Record<string, unknown>;
  const fs = (s.filesystem && typeof s.filesystem === 'object' ? s.filesystem : {}) as Record<string, unknown>;
  const net = (s.network && typeof s.network === 'object' ? s.network : {}) as Record<string, unknown>;
  const domains = stringList(net.allowedDomains, 'network.allowedDomains', file, problems).filter((d) => {
    const parsed = parseDomainPattern(d);
    if (!parsed.ok) problems.push(`"${d}" in sandbox.network.allowedDomains of ${file}: ${parsed.message}`);
    return parsed.ok;
  });
  const paths = (name: 'allowWrite' | 'denyRead' | 'denyWrite') =>
    stringList(fs[name], `filesystem.${name}`, file, problems).map((p) => settingsPath(p, workspace));
  const enabled = bool(s.enabled, 'enabled', file, problems);
  const autoAllow = bool(s.autoAllow, 'autoAllow', file, problems);
  return {
    ...(enabled !== undefined ? { enabled } : {}),
    ...(autoAllow !== undefined ? { autoAllow } : {}),
    allowWrite: paths('allowWrite'),
    denyRead: paths('denyRead'),
    denyWrite: paths('denyWrite'),
    allowedDomains: domains,
    allowAddressClasses: stringList(net.allowAddressClasses, 'network.allowAddressClasses', file, problems).filter((c): c is AddressClass => {
      const known = (ADDRESS_CLASSES as readonly string[]).includes(c);
      if (!known) problems.push(`"${c}" in sandbox.network.allowAddressClasses of ${file} is not one of ${ADDRESS_CLASSES.join(', ')}`);
      return known;
    }),
  };
}

/**
 * Sandbox settings from `~/.deft/settings.json`, `.deft/settings.json` and `.deft/settings.local.json`,
 * merged (lists add up; for `enabled` and `autoAllow` the local file wins over the project file, which
 * wins over the user file). Until the user trusts the workspace, its own files may only narrow: their
 * denies and `enabled: true` / `autoAllow: false` count, their `allowWrite`, `allowedDomains`,
 * `enabled: false` and `autoAllow: true` do not (domains the user allowed in Deft do).
 */
export class SandboxSettingsStore {
  private readonly files: Record<Source, SettingsFile>;
  private readonly trust: TrustStore;
  private readonly workspace: string;
  private cache: { key: string; settings: SandboxSettings } | null = null;

  /** `place`: the workspace (trust under its id, its files on its machine); a bare path is a local folder. */
  constructor(home: string, place: WorkspacePlace | string) {
    const where = typeof place === 'string' ? workspacePlace(place) : place;
    this.workspace = where.path;
    this.files = sandboxSettingsFiles(home, where);
    this.trust = new TrustStore(home, where);
  }

  async load(): Promise<SandboxSettings> {
    const sources = Object.entries(this.files) as Array<[Source, SettingsFile]>;
    const prints = await Promise.all(sources.map(([, file]) => settingsFingerprint(file)));
    const key = [...prints, await this.trust.version()].join('|');
    if (this.cache?.key === key) return this.cache.settings;
    const problems: string[] = [];
    const ignored: string[] = [];
    const trust = await this.trust.get();
    const settings: SandboxSettings = {
      enabled: true,
      autoAllow: true,
      allowWrite: [],
      denyRead: [],
      denyWrite: [],
      allowedDomains: [],
      allowAddressClasses: [],
      problems,
      ignored,
    };
    for (const [source, file] of sources) {
      const { path } = file;
      const read = await readJson(file);
      if (read.problem) problems.push(read.problem);
      const s = section(read.value, path, this.workspace, problems);
      const trusted = source === 'user' || trust.trusted;
      settings.denyRead.push(...s.denyRead);
      settings.denyWrite.push(...s.denyWrite);
      if (s.enabled !== undefined) {
        if (trusted || s.enabled) settings.enabled = s.enabled;
        else ignored.push(`sandbox.enabled false (${path})`);
      }
      if (s.autoAllow !== undefined) {
        if (trusted || !s.autoAllow) settings.autoAllow = s.autoAllow;
        else ignored.push(`sandbox.autoAllow true (${path})`);
      }
      if (trusted) {
        settings.allowWrite.push(...s.allowWrite);
        settings.allowedDomains.push(...s.allowedDomains);
        settings.allowAddressClasses.push(...s.allowAddressClasses);
      } else {
        for (const p of s.allowWrite) ignored.push(`sandbox.filesystem.allowWrite ${p} (${path})`);
        for (const c of s.allowAddressClasses) ignored.push(`sandbox.network.allowAddressClasses ${c} (${path})`);
        for (const d of s.allowedDomains) {
          if (trust.approvedRules.includes(networkRule(d))) settings.allowedDomains.push(d);
          else ignored.push(`sandbox.network.allowedDomains ${d} (${path})`);
        }
      }
    }
    this.cache = { key, settings };
    return settings;
  }
}

/** How a domain the user allowed from an approval is recorded in trust.json, so it works without trusting the folder. */
export function networkRule(domain: string): string {
  return `Network(${domain})`;
}
