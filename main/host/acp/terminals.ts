import type { AgentConnection, ClientCapabilities } from '@agentclientprotocol/sdk';
import type { ClientTerminals } from '#infra/environment/client-terminal/client-terminal-environment';

/**
 * The editor's terminals (`terminal/*`) for the commands of `sessionId`'s tool calls, when the editor offers them
 * (`clientCapabilities.terminal`). `shown` is told each terminal made, so that call shows it.
 */
export function editorTerminals(
  capabilities: ClientCapabilities,
  client: AgentConnection['client'] | null,
  sessionId: string | null,
  shown: (sessionId: string, toolCallId: string, terminalId: string) => void,
): ClientTerminals | null {
  if (!capabilities.terminal || !client || !sessionId) return null;
  return {
    async create({ command, args, cwd, outputByteLimit, toolCallId }) {
      // No `env`: the command is `env -i` with exactly Deft's environment (see clientTerminalEnvironment).
      const { terminalId } = await client.request('terminal/create', { sessionId, command, args, cwd, outputByteLimit });
      shown(sessionId, toolCallId, terminalId);
      const which = { sessionId, terminalId };
      return {
        id: terminalId,
        output: () => client.request('terminal/output', which),
        waitForExit: () => client.request('terminal/wait_for_exit', which),
        kill: async () => void (await client.request('terminal/kill', which)),
        release: async () => void (await client.request('terminal/release', which)),
      };
    },
  };
}
