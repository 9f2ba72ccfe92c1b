import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { PublicWebSettings, WebSearchInput } from '#protocol';
import { webSchemas } from '#protocol/schemas/web';
import { builtOnce } from '#protocol/helpers/built-once';
import type { SecretAccess } from '#contract/capability';
import type { WorkspacePlace } from '#contract/environment';
import { workspacePlace } from '#infra/environment/workspace-place';
import { type SettingsFile, readSettingsFile } from '#infra/settings/settings-file';
import { trimBaseUrl } from '#infra/providers/base-url';
import { SettingsStore } from '#infra/settings/settings-store';
import { TrustStore } from '#infra/settings/trust';
import { normaliseHostEntry } from './net/target';
import { DEFAULT_BASE_URLS, type SearchConfig } from './search/provider';

/** The `web` part of a settings file. */
const webSection = builtOnce(() =>
  z.object({
    allowPrivateHosts: z.array(z.string()).optional(),
    search: z.object({ provider: webSchemas().SearchProviderKind, baseUrl: z.string().optional() }).optional(),
  }),
);
type WebSection = z.infer<ReturnType<typeof webSection>>;

/** The key a search provider's API key is stored under (per provider and endpoint, like model keys). */
export function searchKeyName(provider: string, baseUrl: string): string {
  return `searchKey:${provider}:${trimBaseUrl(baseUrl)}`;
}

function section(raw: unknown, file: string, problems: string[]): WebSection {
  if (raw === undefined) return {};
  const parsed = webSection().safeParse(raw);
  if (parsed.success) return parsed.data;
  problems.push(`"web" in ${file} is not valid (${parsed.error.issues.map((i) => `${i.path.join('.') || 'web'}: ${i.message}`).join('; ')}); it is not used.`);
  return {};
}

function validHosts(entries: readonly string[], file: string, problems: string[]): string[] {
  return entries.filter((entry) => {
    if (normaliseHostEntry(entry)) return true;
    problems.push(`"${entry}" in web.allowPrivateHosts of ${file} is not a host or host:port; it is not used.`);
    return false;
  });
}

/** A workspace settings file as a JSON object, read on the workspace's machine (null when missing or not one). */
async function readJson(file: SettingsFile): Promise<Record<string, unknown> | null> {
  const read = await readSettingsFile(file);
  if (!('text' in read)) return null;
  try {
    const raw = JSON.parse(read.text) as unknown;
    return raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Web settings: `"web"` in `~/.deft/settings.json` (the search provider, allowed private hosts) and the
 * provider's key in the key store (`DEFT_SEARCH_API_KEY` wins). A workspace's own `.deft/settings*.json`
 * may add private hosts only once the user trusts the folder; it can never choose the search provider
 * (that would send the user's key and queries where a cloned repository says).
 */
export class WebSettings {
  private readonly store: SettingsStore;
  private readonly trust: TrustStore;

  private readonly place: WorkspacePlace;

  /** `workspace`: its place (trust under its id, its files on its machine); a bare path is a local folder. */
  constructor(
    private readonly home: string,
    workspace: WorkspacePlace | string,
    private readonly secrets: SecretAccess,
    private readonly env: Record<string, string | undefined>,
  ) {
    this.place = typeof workspace === 'string' ? workspacePlace(workspace) : workspace;
    this.store = new SettingsStore(home);
    this.trust = new TrustStore(home, this.place);
  }

  /** Whether a search provider is chosen, read synchronously (tools are listed synchronously each turn). */
  searchConfigured(): boolean {
    try {
      const raw = JSON.parse(readFileSync(this.store.path, 'utf8')) as { web?: unknown } | null;
      return webSection().safeParse(raw?.web).data?.search !== undefined;
    } catch {
      return false;
    }
  }

  private async userSection(problems: string[]): Promise<WebSection> {
    return section((await this.store.readRaw()).web, this.store.path, problems);
  }

  /** Hosts from the workspace's own settings files, and whether they are used (the folder is trusted). */
  private async workspaceHosts(problems: string[]): Promise<{ hosts: string[]; trusted: boolean }> {
    const { path: workspace, environment } = this.place;
    const files = ['settings.json', 'settings.local.json'].map((name) => environment.path.join(workspace, '.deft', name));
    const hosts: string[] = [];
    for (const file of files) {
      const raw = await readJson({ path: file, environment });
      const web = section(raw?.web, file, problems);
      hosts.push(...validHosts(web.allowPrivateHosts ?? [], file, problems));
    }
    return { hosts, trusted: hosts.length ? (await this.trust.get()).trusted : false };
  }

  /** The hosts FetchURL may reach although private: the user's, plus a trusted workspace's. */
  async allowedPrivateHosts(): Promise<string[]> {
    const problems: string[] = [];
    const user = validHosts((await this.userSection(problems)).allowPrivateHosts ?? [], this.store.path, problems);
    const workspace = await this.workspaceHosts(problems);
    return workspace.trusted ? [...user, ...workspace.hosts] : user;
  }

  /** The search provider with its key, or null when none is chosen. */
  async search(): Promise<SearchConfig | null> {
    const search = (await this.userSection([])).search;
    return search ? this.withKey(search) : null;
  }

  /** A provider as entered in the form (not saved): an omitted key falls back to the stored one. */
  async searchFromInput(input: WebSearchInput): Promise<SearchConfig> {
    const config = await this.withKey({ provider: input.provider, ...(input.baseUrl ? { baseUrl: input.baseUrl } : {}) });
    const typed = input.apiKey?.trim();
    return typed ? { ...config, apiKey: typed, apiKeySource: 'stored' } : config;
  }

  private async withKey(search: { provider: SearchConfig['provider']; baseUrl?: string | undefined }): Promise<SearchConfig> {
    const baseUrl = trimBaseUrl(search.baseUrl?.trim() || DEFAULT_BASE_URLS[search.provider]);
    const fromEnv = this.env.DEFT_SEARCH_API_KEY?.trim();
    if (fromEnv) return { provider: search.provider, baseUrl, apiKey: fromEnv, apiKeySource: 'env' };
    const stored = await this.secrets.get(searchKeyName(search.provider, baseUrl));
    return stored
      ? { provider: search.provider, baseUrl, apiKey: stored, apiKeySource: 'stored' }
      : { provider: search.provider, baseUrl, apiKeySource: 'none' };
  }

  async publicView(): Promise<PublicWebSettings> {
    const problems: string[] = [];
    const user = await this.userSection(problems);
    const allowPrivateHosts = validHosts(user.allowPrivateHosts ?? [], this.store.path, problems);
    const workspaceHosts = await this.workspaceHosts(problems);
    const search = user.search ? await this.withKey(user.search) : null;
    return {
      search: search ? { provider: search.provider, baseUrl: search.baseUrl, hasApiKey: Boolean(search.apiKey), apiKeySource: search.apiKeySource } : null,
      allowPrivateHosts,
      workspaceHosts,
      problems,
    };
  }

  /** Save the form; other keys of `web` (and of the file) are kept. */
  async save(input: { search: WebSearchInput | null; allowPrivateHosts: string[] }): Promise<void> {
    const raw = await this.store.readRaw();
    const previous = raw.web && typeof raw.web === 'object' && !Array.isArray(raw.web) ? (raw.web as Record<string, unknown>) : {};
    const web: Record<string, unknown> = { ...previous, allowPrivateHosts: [...new Set(input.allowPrivateHosts.map((h) => h.trim()).filter(Boolean))] };
    if (input.search) {
      const baseUrl = input.search.baseUrl?.trim();
      web.search = { provider: input.search.provider, ...(baseUrl ? { baseUrl: trimBaseUrl(baseUrl) } : {}) };
      if (input.search.apiKey !== undefined) {
        await this.secrets.set(
          searchKeyName(input.search.provider, trimBaseUrl(baseUrl || DEFAULT_BASE_URLS[input.search.provider])),
          input.search.apiKey.trim(),
        );
      }
    } else {
      delete web.search;
    }
    await this.store.update('web', web);
  }
}
