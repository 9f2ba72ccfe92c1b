import type { McpOverview } from '../../../protocol';
import { deft } from '../bridge';
import { useMcp } from '../stores/mcp';
import { attempt } from './attempt';

const keep = (overview: McpOverview | undefined) => {
  if (overview) useMcp.getState().setOverview(overview);
};

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
