import { join } from 'node:path';
import type { HookInfo, HooksOverview, RuleSource } from '#protocol';
import { type HookEventName, hookSchemas } from '#protocol/schemas/hooks';
import { toolHookEventNames } from '#protocol/helpers/names';
import { enabledPluginParts, registryStamp } from '#infra/plugins/enabled';
import { TrustStore } from '#infra/settings/trust';
import type { WorkspacePlace } from '#contract/environment';
import { workspacePlace } from '#infra/environment/workspace-place';
import { type SettingsFile, onThisMachine, readSettingsFile, settingsFingerprint } from '#infra/settings/settings-file';

/** One hook command as configured, with its compiled matcher. */
export interface ConfiguredHook extends HookInfo {
  /** Tests a tool name (tool events); null = every tool. */
  matches: RegExp | null;
}

export const DEFAULT_TIMEOUT_SEC = 60;
const MAX_TIMEOUT_SEC = 3_600;

type Problem = HooksOverview['problems'][number];

/**
 * Read one file's `"hooks"` section: `{"Event": [{"matcher": "Bash|Write", "hooks": [{"type": "command",
 * "command": "…", "timeout": 60, "sandbox": true, "disabled": false}]}]}`. What cannot be used is a problem naming the file; the
 * rest is kept.
 */
export function parseHooksSection(section: unknown, file: string, source: RuleSource): { hooks: Omit<ConfiguredHook, 'active'>[]; problems: Problem[] } {
  const hooks: Omit<ConfiguredHook, 'active'>[] = [];
  const problems: Problem[] = [];
  const problem = (message: string) => problems.push({ file, message });
  if (section === undefined) return { hooks, problems };
  if (!section || typeof section !== 'object' || Array.isArray(section)) {
    problem(`"hooks" in ${file} must be an object such as {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "…"}]}]}`);
    return { hooks, problems };
  }
  for (const [event, groups] of Object.entries(section)) {
    const name = hookSchemas().HookEventName.safeParse(event);
    if (!name.success) {
      problem(`"hooks.${event}" in ${file} is not an event Deft knows (${hookSchemas().HookEventName.options.join(', ')}); it is ignored`);
      continue;
    }
    if (!Array.isArray(groups)) {
      problem(`"hooks.${event}" in ${file} must be a list of {"matcher", "hooks"} entries`);
      continue;
    }
    groups.forEach((group: unknown, index) => {
      const where = `"hooks.${event}[${index}]" in ${file}`;
      if (!group || typeof group !== 'object' || Array.isArray(group)) return void problem(`${where} must be an object with "hooks"`);
      const { matcher = '', hooks: commands } = group as { matcher?: unknown; hooks?: unknown };
      if (typeof matcher !== 'string') return void problem(`${where}: "matcher" must be a string (a regular expression on the tool name)`);
      let matches: RegExp | null = null;
      if (toolHookEventNames.has(name.data) && matcher !== '' && matcher !== '*') {
        try {
          // Anchored: "Bash" is the Bash tool, not every tool whose name contains it.
          matches = new RegExp(`^(?:${matcher})$`);
        } catch (error) {
          return void problem(`${where}: "matcher" ${JSON.stringify(matcher)} is not a valid regular expression (${(error as Error).message})`);
        }
      }
      if (!Array.isArray(commands)) return void problem(`${where} must have "hooks": a list of {"type": "command", "command": "…"}`);
      commands.forEach((entry: unknown, j) => {
        const at = `${where}.hooks[${j}]`;
        const { type, command, timeout, sandbox, disabled } = (entry ?? {}) as {
          type?: unknown;
          command?: unknown;
          timeout?: unknown;
          sandbox?: unknown;
          disabled?: unknown;
        };
        if (type !== 'command') return void problem(`${at}: only "type": "command" hooks are supported, not ${JSON.stringify(type)}`);
        if (typeof command !== 'string' || !command.trim()) return void problem(`${at}: "command" must be a non-empty string`);
        if (timeout !== undefined && (typeof timeout !== 'number' || !(timeout > 0) || timeout > MAX_TIMEOUT_SEC)) {
          return void problem(`${at}: "timeout" must be a number of seconds between 0 and ${MAX_TIMEOUT_SEC}`);
        }
        if (sandbox !== undefined && typeof sandbox !== 'boolean') return void problem(`${at}: "sandbox" must be true or false`);
        if (disabled !== undefined && typeof disabled !== 'boolean') return void problem(`${at}: "disabled" must be true or false`);
        // The user's own hooks run as the user (notify-send, a log in the home folder); a workspace's run in the sandbox.
        const sandboxed = typeof sandbox === 'boolean' ? sandbox : source !== 'user';
        hooks.push({
          event: name.data,
          matcher,
          matches,
          command,
          timeoutSec: timeout ?? DEFAULT_TIMEOUT_SEC,
          source,
          file,
          sandboxed,
          ...(disabled ? { disabled: true } : {}),
          group: index,
          index: j,
        });
      });
    });
  }
  return { hooks, problems };
}

async function readJson(file: SettingsFile): Promise<{ raw?: unknown; problem?: string }> {
  const path = file.path;
  // A FIFO in a cloned repo's .deft/ would block the read forever (readSettingsFile refuses what is not a file).
  const read = await readSettingsFile(file);
  if ('missing' in read) return {};
  if ('notFile' in read) return { problem: `${path} is not a regular file; its hooks are not used` };
  if ('error' in read) return { problem: `${path} cannot be used (${read.error}); its hooks are not used until it is fixed` };
  try {
    return read.text.trim() ? { raw: JSON.parse(read.text) as unknown } : {};
  } catch (error) {
    return { problem: `${path} cannot be used (${(error as Error).message}); its hooks are not used until it is fixed` };
  }
}

/**
 * The hooks of `~/.deft/settings.json` (user), `.deft/settings.json` (project) and `.deft/settings.local.json`
 * (local), in that order, re-read only when a file or the trust file changes. A workspace's own files come
 * with the repository: their hooks are listed but inactive until the user trusts the folder.
 */
export class HookConfig {
  readonly files: Record<RuleSource, string>;
  readonly trust: TrustStore;
  /** Where each file is read: the user's on this machine, the workspace's on the workspace's (a remote folder's there). */
  private readonly where: Record<RuleSource, SettingsFile>;
  private cache: { key: string; hooks: ConfiguredHook[]; overview: HooksOverview } | null = null;

  /** A remote folder's own files are read there (through its Environment); trust is under the place's id. */
  constructor(
    private readonly home: string,
    place: WorkspacePlace | string,
  ) {
    const resolved = typeof place === 'string' ? workspacePlace(place) : place;
    const { path: workspace, environment } = resolved;
    this.files = {
      user: join(home, 'settings.json'),
      project: join(workspace, '.deft', 'settings.json'),
      local: join(workspace, '.deft', 'settings.local.json'),
    };
    this.where = {
      user: onThisMachine(this.files.user),
      project: { path: this.files.project, environment },
      local: { path: this.files.local, environment },
    };
    this.trust = new TrustStore(home, resolved);
  }

  /** The hooks (active and not) and the overview Settings shows; `changed` when they differ from the last load. */
  async load(): Promise<{ hooks: ConfiguredHook[]; overview: HooksOverview; changed: boolean }> {
    const sources = Object.entries(this.files) as Array<[RuleSource, string]>;
    const prints = await Promise.all(sources.map(([source]) => settingsFingerprint(this.where[source])));
    const key = [...prints, await this.trust.version(), await registryStamp(this.home)].join('|');
    if (this.cache?.key === key) return { hooks: this.cache.hooks, overview: this.cache.overview, changed: false };
    const { trusted } = await this.trust.get();
    const hooks: ConfiguredHook[] = [];
    const problems: Problem[] = [];
    for (const [source, path] of sources) {
      const read = await readJson(this.where[source]);
      if (read.problem) {
        problems.push({ file: path, message: read.problem });
        continue;
      }
      if (read.raw === undefined) continue;
      if (!read.raw || typeof read.raw !== 'object' || Array.isArray(read.raw)) continue;
      const parsed = parseHooksSection((read.raw as Record<string, unknown>).hooks, path, source);
      problems.push(...parsed.problems);
      hooks.push(...parsed.hooks.map((hook) => ({ ...hook, active: source === 'user' || trusted })));
    }
    // Enabled plugins' hooks run as the user's own: installing a plugin is the user's act of trust in it.
    const fromPlugins = await enabledPluginParts(this.home);
    problems.push(...fromPlugins.problems);
    for (const plugin of fromPlugins.plugins)
      for (const { file, section } of plugin.hooks) {
        const parsed = parseHooksSection(section, file, 'user');
        problems.push(...parsed.problems);
        hooks.push(...parsed.hooks.map((hook) => ({ ...hook, active: true, plugin: plugin.name })));
      }
    const overview: HooksOverview = { hooks: hooks.map(({ matches: _matches, ...info }) => info), problems, trusted };
    const changed = this.cache !== null && JSON.stringify(overview) !== JSON.stringify(this.cache.overview);
    this.cache = { key, hooks, overview };
    return { hooks, overview, changed };
  }
}

/** The hooks that run for an event (and a tool): active, not disabled ones whose matcher fits, each command once. */
export function hooksFor(hooks: readonly ConfiguredHook[], event: HookEventName, toolName?: string): ConfiguredHook[] {
  const seen = new Set<string>();
  return hooks.filter((hook) => {
    if (!hook.active || hook.disabled || hook.event !== event) return false;
    if (hook.matches && (toolName === undefined || !hook.matches.test(toolName))) return false;
    if (seen.has(hook.command)) return false;
    seen.add(hook.command);
    return true;
  });
}
