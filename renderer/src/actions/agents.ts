import { deft } from '../bridge';
import { useAgentLive } from '../stores/agents';
import { attempt } from './attempt';
import { inOpenSession } from './sessions';

/** Open a sub-agent's transcript: what it did so far, then followed live. */
export function watchAgent(agentId: string): Promise<void> {
  return inOpenSession(async (sessionId) => {
    const { events } = await deft.getAgentTranscript({ sessionId, agentId });
    useAgentLive.getState().watch(agentId, events);
  });
}

export function unwatchAgent(agentId: string): void {
  useAgentLive.getState().unwatch(agentId);
}

/** Stop a running sub-agent, or every sub-agent of a swarm (finished results are kept). */
export function stopAgents(target: { agentId: string } | { swarmId: string }): Promise<void> {
  return inOpenSession(async (sessionId) => {
    await deft.stopAgents({ sessionId, ...target });
  });
}

/** The sub-agent types and the definition files that were skipped (null when they could not be read). */
export function listAgentTypes() {
  return attempt(() => deft.listAgentTypes({}), null);
}

/** Call `listener` when the sub-agent types change (a definition file added, edited or removed); returns the unsubscribe. */
export function onAgentTypesChanged(listener: () => void): () => void {
  return deft.onEvent((event) => {
    if (event.type === 'agents.changed') listener();
  });
}
