import { useEffect, useMemo } from 'react';
import { unwatchAgent, watchAgent } from '../../actions/agents';
import { useAgentLive } from '../../stores/agents';
import { reduce } from '../../stores/session-slice';
import { emptyTranscript, transcriptSlice } from '../../stores/transcript';
import { TranscriptRow } from '../conversation/Conversation';

/**
 * A sub-agent's own conversation, with the same rows as the main one: its prompt, its answers and its tool
 * cards, loaded when opened and then streaming live.
 */
export function AgentTranscript({ agentId, label }: { agentId: string; label: string }) {
  const events = useAgentLive((s) => s.transcripts[agentId]);
  useEffect(() => {
    void watchAgent(agentId);
    return () => unwatchAgent(agentId);
  }, [agentId]);
  const items = useMemo(() => (events ? reduce(transcriptSlice, emptyTranscript, events).items : null), [events]);
  if (!items) return <div className="agent-transcript agent-transcript-loading" aria-busy="true" aria-label={label} />;
  return (
    <div className="agent-transcript" role="log" aria-label={label}>
      {items.map((item) => (
        <div key={item.id} className="agent-transcript-row">
          <TranscriptRow item={item} />
        </div>
      ))}
    </div>
  );
}
