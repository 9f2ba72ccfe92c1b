import { useTranscript } from '../stores/transcript';
import { TranscriptRow } from '../features/conversation/Conversation';
// The app shell registers the sub-agent cards; so do the tests that render rows.
import '../features/agents/register';

/** The open session's rows as the conversation renders each one (without the virtual list around them). */
export function Rows() {
  const items = useTranscript((s) => s.items);
  return (
    <>
      {items.map((item) => (
        <TranscriptRow key={item.id} item={item} />
      ))}
    </>
  );
}
