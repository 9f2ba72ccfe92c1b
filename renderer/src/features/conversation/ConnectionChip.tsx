import { Spinner } from '../../components/Icon';
import { useSettings } from '../../stores/settings';

const WORDS = { connected: 'Connected', reconnecting: 'Reconnecting…', lost: 'Disconnected' } as const;

/** A remote workspace's host and connection: shown only when the workspace is on another machine. */
export function ConnectionChip() {
  const remote = useSettings((s) => s.workspace?.remote);
  if (!remote) return null;
  const title =
    remote.state === 'connected'
      ? `The workspace is on ${remote.label}, over SSH.`
      : remote.state === 'reconnecting'
        ? `The connection to ${remote.label} dropped; reconnecting. Tool calls wait for it.${remote.detail ? `\n${remote.detail}` : ''}`
        : `The connection to ${remote.label} is lost.${remote.detail ? `\n${remote.detail}` : ''}`;
  return (
    <span
      className={`status-pill connection-chip connection-${remote.state}`}
      role="status"
      title={title}
      aria-label={`${remote.label}: ${WORDS[remote.state]}`}
    >
      {remote.state === 'reconnecting' ? <Spinner size={10} /> : <span className="connection-dot" aria-hidden="true" />}
      {remote.label}
      {remote.state === 'connected' ? null : <span> · {WORDS[remote.state]}</span>}
    </span>
  );
}
