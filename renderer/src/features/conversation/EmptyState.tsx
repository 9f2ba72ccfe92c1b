import { sendPrompt } from '../../actions/sessions';
import { useSettings } from '../../stores/settings';
import './conversation.css';

const SUGGESTIONS = [
  'Give me a tour of this codebase: what it does and how it is laid out.',
  'Find the TODO and FIXME comments and summarise them.',
  'How do I build and test this project?',
];

export function EmptyState() {
  const workspace = useSettings((s) => s.workspace);
  return (
    <div className="empty-state">
      <div className="empty-mark" aria-hidden="true">
        ◆
      </div>
      <h1>What should we work on?</h1>
      <p>
        Deft is working in <code title={workspace?.path}>{workspace?.path ?? '…'}</code>.
      </p>
      <div className="suggestions">
        {SUGGESTIONS.map((s) => (
          <button key={s} type="button" className="suggestion" onClick={() => void sendPrompt(s)}>
            {s}
          </button>
        ))}
      </div>
    </div>
  );
}
