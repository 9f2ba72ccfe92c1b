import { Spinner } from '../../components/Icon';

/** Under the newest row while a turn waits for the model's first tokens. */
export function ThinkingRow() {
  return (
    <div className="thinking-row" role="status">
      <Spinner size={12} /> Thinking…
    </div>
  );
}
