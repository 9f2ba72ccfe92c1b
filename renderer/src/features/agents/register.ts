import { registerCard } from '../tools/registry';
import { AgentCallCard } from './AgentCallCard';
import { SwarmCard } from './SwarmCard';

// Sub-agent cards render tool cards of their own (their transcripts), so the registry cannot import them
// without a cycle: they are registered here, once, by the app shell.
registerCard('agent_call', AgentCallCard);
registerCard('agent_swarm', SwarmCard);
