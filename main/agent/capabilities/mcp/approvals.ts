import type { McpServerStatus } from '#protocol';
import { SettingsStore } from '#infra/settings/settings-store';
import { type McpServerDecision, TrustStore } from '#infra/settings/trust';
import { type ConfigProblem, type ServerDefinition, configFiles, isStdio, loadMcpConfig, withPluginServers } from './config';
import { workspacePlace } from '#infra/environment/workspace-place';

/** What decides whether a workspace's own server may start: folder trust, the user's answers, names they allowed. */
export interface ProjectServerGate {
  trusted: boolean;
  decisions: Record<string, McpServerDecision>;
  disabled: readonly string[];
  /** Workspace servers the user allowed by name: `enabledMcpjsonServers` in their settings, `deft run --mcp-server`. */
  allowedByName: readonly string[];
}

/**
 * Why a server may not start now, or null when it may. The user's own servers (their file, `--mcp-config`)
 * start unless switched off. A workspace's own servers come with the repository: only in a trusted folder,
 * and only once the user approved their definition (an answer counts for the definition it was given for:
 * a changed command, argument, variable or URL asks again) or allowed them by name. Headless runs are no
 * exception: nobody can approve there, so what was not approved before does not start.
 */
export function serverGate(definition: ServerDefinition, gate: ProjectServerGate): McpServerStatus | null {
  if (definition.config.disabled || gate.disabled.includes(definition.name)) return 'disabled';
  if (definition.source !== 'project') return null;
  if (!gate.trusted) return 'untrusted';
  if (gate.allowedByName.includes(definition.name)) return null;
  const decision = gate.decisions[definition.name];
  if (!decision || decision.fingerprint !== definition.fingerprint) return 'needs-approval';
  return decision.approved ? null : 'denied';
}

/** `enabledMcpjsonServers` of the user's own settings (never a workspace's: a repository cannot allow itself). */
export async function namesAllowedInSettings(home: string): Promise<string[]> {
  const raw = (await new SettingsStore(home).readRaw().catch((): Record<string, unknown> => ({}))).enabledMcpjsonServers;
  return Array.isArray(raw) ? raw.filter((n): n is string => typeof n === 'string') : [];
}

/** One server as `deft mcp list` shows it, read from the files alone (nothing is started). */
export interface ServerListing {
  name: string;
  source: ServerDefinition['source'];
  file: string;
  /** The command line or the URL. */
  target: string;
  /** Whether it may start (`null`), or why not. */
  gate: McpServerStatus | null;
  /** A workspace server whose definition changed since the user answered. */
  changedSinceAnswer: boolean;
}

export interface ApprovalPlaces {
  home: string;
  workspace: string;
  env: Readonly<Record<string, string | undefined>>;
}

async function load(places: ApprovalPlaces): Promise<{ servers: ServerDefinition[]; problems: ConfigProblem[]; trust: TrustStore; gate: ProjectServerGate }> {
  const { home, workspace, env } = places;
  // `deft mcp` (a local folder): its trust is under its path.
  const trust = new TrustStore(home, workspacePlace(workspace));
  const config = await loadMcpConfig((await withPluginServers(home, configFiles({ home, workspace }))).files, env);
  const settings = (await new SettingsStore(home).readRaw().catch((): Record<string, unknown> => ({}))).mcp as { disabled?: unknown } | undefined;
  const disabled = Array.isArray(settings?.disabled) ? settings.disabled.filter((n): n is string => typeof n === 'string') : [];
  const gate: ProjectServerGate = {
    trusted: (await trust.get()).trusted,
    decisions: await trust.mcpDecisions(),
    disabled,
    allowedByName: await namesAllowedInSettings(home),
  };
  return { servers: config.servers, problems: config.problems, trust, gate };
}

/** Every server of the user's file and the workspace's, with whether it may start and why not. */
export async function listServers(places: ApprovalPlaces): Promise<{ servers: ServerListing[]; problems: ConfigProblem[]; trusted: boolean }> {
  const { servers, problems, gate } = await load(places);
  return {
    trusted: gate.trusted,
    problems,
    servers: servers.map((definition) => {
      const decision = gate.decisions[definition.name];
      return {
        name: definition.name,
        source: definition.source,
        file: definition.file,
        target: isStdio(definition.config) ? [definition.config.command, ...(definition.config.args ?? [])].join(' ') : definition.config.url,
        gate: serverGate(definition, gate),
        changedSinceAnswer: definition.source === 'project' && decision !== undefined && decision.fingerprint !== definition.fingerprint,
      };
    }),
  };
}

/**
 * Record the user's answer about a workspace server, for its definition as it is now. Refused (with why) for a
 * name that is not a workspace server, and before the folder is trusted: an answer given then would start the
 * server the moment it is. Returns the definition answered for.
 */
export async function decideServer(places: ApprovalPlaces, name: string, approved: boolean): Promise<ServerDefinition> {
  const { servers, trust, gate } = await load(places);
  const definition = servers.find((s) => s.name === name);
  if (!definition) {
    const known = servers.filter((s) => s.source === 'project').map((s) => s.name);
    throw new Error(
      `There is no MCP server named "${name}" in this folder's .mcp.json or .deft/mcp.json${known.length ? ` (its servers: ${known.join(', ')})` : ''}.`,
    );
  }
  if (definition.source !== 'project')
    throw new Error(`"${name}" is not a workspace server (it is defined in ${definition.file}): only servers from the workspace's own files are approved.`);
  if (!gate.trusted)
    throw new Error(`Trust this folder first: "${name}" comes from the workspace's own files, and nothing they define runs in a folder you have not trusted.`);
  await trust.decideMcpServer(name, { fingerprint: definition.fingerprint, approved });
  return definition;
}
