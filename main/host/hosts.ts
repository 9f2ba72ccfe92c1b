import type { HostCapabilities, HostWarning } from '../agent/contract/host';

// What each host can do (contract/host.ts): the core and its capabilities read this, never the host's name.

/** The desktop app: a window that asks, and shows every warning in its own views. */
export const electronHost: HostCapabilities = { kind: 'electron', canAsk: true, hasWindow: true };

/** The web host: the same window, in a browser. */
export const webHost: HostCapabilities = { kind: 'web', canAsk: true, hasWindow: true };

/** `deft run` and `deft rewind`: nobody to ask, no window; warnings go to stderr (to nowhere without `stderr`). */
export function cliHost(stderr?: (text: string) => void): HostCapabilities {
  return {
    kind: 'cli',
    canAsk: false,
    hasWindow: false,
    ...(stderr ? { warn: (warning: HostWarning) => stderr(`deft: warning: ${warningText(warning)}\n`) } : {}),
  };
}

/**
 * `deft acp`: an editor (an Agent Client Protocol client) asks the user, but shows no Deft window; warnings go to
 * stderr, which editors keep in their agent log.
 */
export function acpHost(stderr: (text: string) => void): HostCapabilities {
  return { kind: 'acp', canAsk: true, hasWindow: false, warn: (warning: HostWarning) => stderr(`deft: warning: ${warningText(warning)}\n`) };
}

/** A capability's warning in the CLI's words. */
export function warningText(warning: HostWarning): string {
  switch (warning.kind) {
    case 'config-problem':
      return `${warning.file}: ${warning.message}`;
    case 'mcp-server-untrusted':
      return `MCP server "${warning.server}" from ${warning.file} was not started: this folder is not trusted. Trust it in the Deft window, or set "trusted": true for it in ~/.deft/trust.json.`;
    case 'mcp-server-needs-approval':
      return `MCP server "${warning.server}" from ${warning.file} was not started: its definition (${warning.target}) is not approved, or changed since it was. ${approveHint(warning.server)}`;
    case 'mcp-server-denied':
      return `MCP server "${warning.server}" from ${warning.file} was not started: you denied it. ${approveHint(warning.server)}`;
    case 'mcp-server-unavailable':
      return `MCP server "${warning.server}" is not available: ${warning.error}${warning.signInUrl ? ` Sign in at ${warning.signInUrl} while Deft runs (the window keeps the sign-in).` : ''}`;
  }
}

const approveHint = (server: string) => `Approve it with: deft mcp approve ${server} (in this folder), or allow it for one run with --mcp-server ${server}.`;
