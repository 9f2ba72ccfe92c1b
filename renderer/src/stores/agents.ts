import { create } from 'zustand';
import type { AgentInfo, AppEvent, SessionEvent, SwarmProgress } from '#protocol';
import type { SessionSlice } from './session-slice';

export interface SwarmInfo {
  swarmId: string;
  callId: string;
  description: string;
  progress: SwarmProgress;
}

/** The open session's sub-agents (their cards) and swarms, from its events. */
export interface AgentsState {
  agents: Record<string, AgentInfo>;
  /** Agent ids in the order they started. */
  order: string[];
  swarms: Record<string, SwarmInfo>;
}

export const agentsSlice: SessionSlice<AgentsState> = {
  empty: { agents: {}, order: [], swarms: {} },
  on: {
    'agent.updated': (state, { agent }) => ({
      ...state,
      agents: { ...state.agents, [agent.agentId]: agent },
      order: state.order.includes(agent.agentId) ? state.order : [...state.order, agent.agentId],
    }),
    'swarm.updated': (state, event) => ({
      ...state,
      swarms: { ...state.swarms, [event.swarmId]: { swarmId: event.swarmId, callId: event.callId, description: event.description, progress: event.progress } },
    }),
  },
};

export const useAgents = create<AgentsState>()(() => agentsSlice.empty);

export type AgentEvent = Extract<AppEvent, { type: 'agent.event' }>;

/** What a sub-agent is doing now, from its live events (not replayed: a card shows its last saved state otherwise). */
export interface AgentActivity {
  /** Its latest step in words ("Read notes.txt", "Writing…"). */
  line: string;
  steps: number;
  tokens: number;
}

/**
 * Live state of the open session's sub-agents: a line of activity each, and — for the agents whose
 * transcript is open — their events (loaded with getAgentTranscript, then followed live).
 */
interface AgentLiveState {
  sessionId: string | null;
  activity: Record<string, AgentActivity>;
  transcripts: Record<string, SessionEvent[]>;
  apply(sessionId: string | null, events: readonly AgentEvent[]): void;
  /** Start following an agent's transcript from these events (what it did so far). */
  watch(agentId: string, events: SessionEvent[]): void;
  unwatch(agentId: string): void;
  reset(sessionId: string | null): void;
}

export function activityLine(event: SessionEvent): string | null {
  switch (event.type) {
    case 'tool.call.started':
      return `${event.name}: ${event.description}`;
    case 'assistant.delta':
      return 'Writing…';
    case 'thinking.delta':
      return 'Thinking…';
    case 'step.started':
      return 'Thinking…';
    case 'turn.ended':
      return event.stopReason === 'end_turn' ? 'Done' : event.stopReason === 'cancelled' ? 'Stopped' : `Ended: ${event.error?.message ?? event.stopReason}`;
    default:
      return null;
  }
}

export const useAgentLive = create<AgentLiveState>()((set) => ({
  sessionId: null,
  activity: {},
  transcripts: {},
  apply: (sessionId, events) =>
    set((state) => {
      const same = state.sessionId === sessionId;
      const activity: Record<string, AgentActivity> = same ? { ...state.activity } : {};
      let transcripts: Record<string, SessionEvent[]> = same ? state.transcripts : {};
      for (const { sessionId: of, agentId, event } of events) {
        if (of !== sessionId) continue;
        const before = activity[agentId] ?? { line: '', steps: 0, tokens: 0 };
        const line = activityLine(event);
        activity[agentId] = {
          line: line ?? before.line,
          steps: before.steps + (event.type === 'step.started' ? 1 : 0),
          tokens: event.type === 'usage' ? event.total.inputTokens + event.total.outputTokens : before.tokens,
        };
        const watched = transcripts[agentId];
        if (watched && !watched.some((e) => e.seq >= event.seq)) transcripts = { ...transcripts, [agentId]: [...watched, event] };
      }
      return { sessionId, activity, transcripts };
    }),
  watch: (agentId, events) => set((state) => ({ transcripts: { ...state.transcripts, [agentId]: events } })),
  unwatch: (agentId) =>
    set((state) => {
      const { [agentId]: _gone, ...rest } = state.transcripts;
      return { transcripts: rest };
    }),
  reset: (sessionId) => set({ sessionId, activity: {}, transcripts: {} }),
}));
