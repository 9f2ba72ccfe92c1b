import type { McpOverview } from '#protocol';
import { deft } from '../bridge';
import { useMcp } from '../stores/mcp';
import { attempt } from './attempt';
import { useUi } from '../stores/ui';
import { inSession } from './sessions';

const keep = (overview: McpOverview | undefined) => {
  if (overview) useMcp.getState().setOverview(overview);
};

/** Run an MCP prompt as `/command args` in the current session (a new one when none is open); false when it could not start (the error is shown). */
export function runMcpPrompt(command: string, args: string): Promise<boolean> {
  return inSession(async (sessionId) => {
    useUi.getState().showBanner(null);
    await deft.runMcpPrompt({ sessionId, command, ...(args.trim() ? { args: args.trim() } : {}) });
    return true;
  }, false);
}

/** Fetch the servers (this also reads the MCP files again). */
export async function loadMcpServers(): Promise<void> {
  keep(await attempt(() => deft.listMcpServers({})));
}

export async function setMcpServerEnabled(name: string, enabled: boolean): Promise<void> {
  keep(await attempt(() => deft.setMcpServerEnabled({ name, enabled })));
}

export async function restartMcpServer(name: string): Promise<void> {
  keep(await attempt(() => deft.restartMcpServer({ name })));
}

export async function decideMcpServer(name: string, approved: boolean): Promise<void> {
  keep(await attempt(() => deft.decideMcpServer({ name, approved })));
}

/** Add a server to ~/.deft/mcp.json; throws (for the form to show) when the entry is not valid. */
export async function saveMcpServer(name: string, definition: Record<string, unknown>): Promise<void> {
  keep(await deft.saveMcpServer({ name, definition }));
}
