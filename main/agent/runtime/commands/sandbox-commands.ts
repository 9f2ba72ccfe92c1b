import type { RuleSource, SandboxFileSettings, SandboxSettingsInput, SandboxSettingsView, SandboxStatus } from '#protocol';
import type { CommandHandlers } from '#contract/commands';
import type { Environment, WorkspacePlace } from '#contract/environment';
import { CommandError } from '#contract/errors';
import { parseDomainPattern } from '#infra/sandbox/domains';
import { type SandboxSettingsStore, sandboxSettingsFiles } from '#infra/sandbox/settings';
import { SettingsEditError, editSettingsFile, objectAt } from '#infra/settings/settings-edit';
import { type SettingsFile, readSettingsFile } from '#infra/settings/settings-file';
import { TrustStore } from '#infra/settings/trust';

export interface SandboxCommandDeps {
  home: string;
  place: WorkspacePlace;
  environment: Environment;
  sandbox: { settings: SandboxSettingsStore; status(): Promise<SandboxStatus> };
}

const SOURCES: RuleSource[] = ['user', 'project', 'local'];
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
const record = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** One file's `"sandbox"` section as written (the merged view says what is in force, and the problems). */
async function fileSection(file: SettingsFile): Promise<SandboxFileSettings> {
  const read = await readSettingsFile(file);
  let root: unknown = {};
  if ('text' in read && read.text.trim()) {
    try {
      root = JSON.parse(read.text) as unknown;
    } catch {
      root = {};
    }
  }
  const sandbox = record(record(root).sandbox);
  const fs = record(sandbox.filesystem);
  const net = record(sandbox.network);
  return {
    ...(typeof sandbox.enabled === 'boolean' ? { enabled: sandbox.enabled } : {}),
    ...(typeof sandbox.autoAllow === 'boolean' ? { autoAllow: sandbox.autoAllow } : {}),
    allowWrite: strings(fs.allowWrite),
    denyRead: strings(fs.denyRead),
    allowedDomains: strings(net.allowedDomains),
  };
}

/** Paths a user may list: one printable line; never the whole file system or the whole home folder as writable. */
function checkPaths(name: string, paths: readonly string[], writable: boolean): void {
  for (const path of paths) {
    if (/^~[^/]/.test(path))
      throw new CommandError('invalid_request', `"${path}" in ${name}: write ~/folder for a folder in your home; ~user is not supported.`);
    if (writable && /^(\/+|~\/*|\.\/*|\.)$/.test(path))
      throw new CommandError(
        'invalid_request',
        `"${path}" in ${name} would make the whole ${path.startsWith('/') ? 'file system' : path.startsWith('~') ? 'home folder' : 'workspace'} writable; name a folder.`,
      );
  }
}

/**
 * Settings → Sandbox: whether commands run in the OS sandbox here (and why not), each settings file's `"sandbox"`
 * section, and changes to one of them. The user's own file always; a workspace's only once the folder is trusted
 * (its files widen the sandbox). Commands of the window only: the model's tools never reach them, and its file tools
 * treat every settings file as a protected path.
 */
export function sandboxCommands(deps: SandboxCommandDeps): Pick<CommandHandlers, 'getSandboxSettings' | 'setSandboxSettings'> {
  const files = sandboxSettingsFiles(deps.home, deps.place);
  const trust = new TrustStore(deps.home, deps.place);

  async function view(): Promise<SandboxSettingsView> {
    const loaded = await deps.sandbox.settings.load();
    // A remote workspace's is bubblewrap there (infra/sandbox/remote.ts), probed over the link, which may be down.
    const status: SandboxStatus = await deps.sandbox.status().catch((error: unknown) => ({
      available: false,
      enabled: false,
      reason: `Could not check the sandbox on ${deps.environment.label}: ${error instanceof Error ? error.message : String(error)}`,
    }));
    const [user, project, local] = await Promise.all(SOURCES.map((source) => fileSection(files[source])));
    return {
      status,
      trusted: (await trust.get()).trusted,
      files: { user: files.user.path, project: files.project.path, local: files.local.path },
      sources: { user: user!, project: project!, local: local! },
      effective: {
        enabled: loaded.enabled,
        autoAllow: loaded.autoAllow,
        allowWrite: loaded.allowWrite,
        denyRead: loaded.denyRead,
        allowedDomains: loaded.allowedDomains,
      },
      problems: loaded.problems,
      ignored: loaded.ignored,
    };
  }

  return {
    getSandboxSettings: () => view(),
    setSandboxSettings: async ({ source, ...change }: SandboxSettingsInput) => {
      if (source !== 'user' && !(await trust.get()).trusted)
        throw new CommandError(
          'invalid_request',
          'This folder is not trusted: trust it (Settings → Permissions) before changing its own sandbox settings, or change your own.',
        );
      if (change.allowWrite) checkPaths('allowWrite', change.allowWrite, true);
      if (change.denyRead) checkPaths('denyRead', change.denyRead, false);
      for (const domain of change.allowedDomains ?? []) {
        const parsed = parseDomainPattern(domain);
        if (!parsed.ok) throw new CommandError('invalid_request', `"${domain}" is not a domain Deft can allow: ${parsed.message}.`);
      }
      const file = files[source];
      try {
        await editSettingsFile(file, source === 'user' ? null : deps.place, (root) => {
          const sandbox = objectAt(root, 'sandbox', file.path);
          if (change.enabled !== undefined) sandbox.enabled = change.enabled;
          if (change.autoAllow !== undefined) sandbox.autoAllow = change.autoAllow;
          if (change.allowWrite) objectAt(sandbox, 'filesystem', file.path).allowWrite = [...new Set(change.allowWrite)];
          if (change.denyRead) objectAt(sandbox, 'filesystem', file.path).denyRead = [...new Set(change.denyRead)];
          if (change.allowedDomains) objectAt(sandbox, 'network', file.path).allowedDomains = [...new Set(change.allowedDomains)];
        });
      } catch (error) {
        if (error instanceof SettingsEditError) throw new CommandError(error.code, error.message);
        throw error;
      }
      return view();
    },
  };
}
