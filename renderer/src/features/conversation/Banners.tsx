import { Icon } from '../../components/Icon';
import { useSessions } from '../../stores/sessions';
import { useUi } from '../../stores/ui';
import { SETTINGS_CODES, headlineFor } from './provider-errors';
import { useSettings } from '../../stores/settings';
import { useState } from 'react';
import './conversation.css';

/** One line when commands run without an OS sandbox, saying why and how to get one. */
function SandboxNotice() {
  const sandbox = useSettings((s) => s.workspace?.sandbox);
  const [dismissed, setDismissed] = useState(false);
  if (!sandbox || sandbox.available || dismissed) return null;
  return (
    <div className="banner banner-warning sandbox-notice" role="status" aria-label="No OS sandbox">
      <Icon name="shield" size={14} />
      <span className="banner-line">
        <strong>Commands run without an OS sandbox</strong> — only the permission rules apply. {sandbox.reason} {sandbox.install}
      </span>
      <button type="button" className="icon-button" aria-label="Dismiss the sandbox notice" onClick={() => setDismissed(true)}>
        ×
      </button>
    </div>
  );
}

/**
 * Errors outside the conversation the user should act on: a command that failed (with a way to fix it),
 * a lost connection, a damaged log. A turn's own error is shown once, where it happened (ErrorNotice).
 */
export function Banners() {
  const problems = useSessions((s) => s.problems);
  const banner = useUi((s) => s.banner);
  const connection = useUi((s) => s.connection);
  const error = banner;
  return (
    <div className="banners">
      <SandboxNotice />
      {connection === 'closed' ? (
        <div className="banner banner-warning" role="status">
          <Icon name="alert" size={14} /> Lost the connection to Deft. Reconnecting…
        </div>
      ) : null}
      {error ? (
        <div className="banner banner-error" role="alert">
          <Icon name="alert" size={16} />
          <div className="banner-text">
            <strong>{headlineFor(error.code)}</strong>
            <span>{error.message}</span>
          </div>
          {SETTINGS_CODES.has(error.code ?? '') ? (
            <button type="button" className="button" onClick={() => useUi.getState().openSettings(true, 'provider')}>
              Open Settings
            </button>
          ) : null}
          <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => useUi.getState().showBanner(null)}>
            ×
          </button>
        </div>
      ) : null}
      {problems.length ? (
        <div className="banner banner-warning" role="status">
          <Icon name="alert" size={14} />
          <div className="banner-text">
            <strong>Part of this session's log could not be read</strong>
            <span>{problems.slice(0, 3).join(' ')}</span>
          </div>
        </div>
      ) : null}
    </div>
  );
}
