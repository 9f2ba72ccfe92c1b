/** How long an MCP tool call may take unless its server's config says otherwise. */
export const DEFAULT_CALL_TIMEOUT_MS = 10 * 60_000;
