import type { WorkspaceInfo } from '#protocol';

/**
 * A warning a capability wants the user to see where no window shows it (a headless run). The host words it: the
 * capability says what happened, not how to print it.
 */
export type HostWarning =
  /** A configuration file (or an entry of one) could not be used. */
  | { kind: 'config-problem'; file: string; message: string }
  /** A workspace's MCP server was not started because the folder is not trusted. */
  | { kind: 'mcp-server-untrusted'; server: string; file: string }
  /** A workspace's MCP server was not started: its definition (`target`, the command or URL) is not approved, or changed since. */
  | { kind: 'mcp-server-needs-approval'; server: string; file: string; target: string }
  /** A workspace's MCP server was not started: the user denied it. */
  | { kind: 'mcp-server-denied'; server: string; file: string }
  /** An MCP server is not available: it failed to start, or it needs the user to sign in (`signInUrl`). */
  | { kind: 'mcp-server-unavailable'; server: string; error: string; signInUrl?: string };

/**
 * What the host the core runs in can do. Each host sets it (the Electron window, the web host, the CLI); capabilities
 * read what they need from it instead of asking which host it is.
 */
export interface HostCapabilities {
  /** Which host it is, as the window is told (getWorkspace). Not for decisions: read the capabilities below. */
  readonly kind: WorkspaceInfo['host'];
  /**
   * Someone can be asked while a turn runs: approvals, questions, plan reviews, hunk reviews, network requests. False
   * headless, where what would ask is refused with what would allow it (a plan is approved, and the model told so).
   */
  readonly canAsk: boolean;
  /**
   * A window shows the sessions and the host outlives a turn: the @-mention picker's file index is worth building, and a
   * scheduled prompt will find someone there when it fires.
   */
  readonly hasWindow: boolean;
  /** Say a capability's warning where no window shows it (the CLI: a line on stderr). Absent where the window shows its own. */
  readonly warn?: (warning: HostWarning) => void;
}
