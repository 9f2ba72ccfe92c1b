import { Icon } from '../../components/Icon';
import { useSessions } from '../../stores/sessions';
import { useTranscript } from '../../stores/transcript';
import { useUi } from '../../stores/ui';
import { useSettings } from '../../stores/settings';
import { useState } from 'react';

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

const SETTINGS_CODES = new Set(['provider_auth', 'provider_not_found', 'provider_unreachable', 'provider_bad_request', 'provider_quota', 'not_configured', 'unsupported']);

const HEADLINES: Record<string, string> = {
  provider_auth: 'The API key was rejected',
  provider_not_found: 'Model or endpoint not found',
  provider_unreachable: 'The model server cannot be reached',
  provider_quota: 'Out of quota',
  provider_rate_limit: 'Rate limited',
  provider_server: 'The model server failed',
  provider_timeout: 'The model server stopped responding',
  provider_stream_broken: 'The answer stream broke',
  not_configured: 'No model configured',
};

/** Errors the user should act on: provider failures (with a way to fix them), lost connections, damaged logs. */
export function Banners() {
  const turnError = useTranscript((s) => s.lastError);
  const problems = useSessions((s) => s.problems);
  const banner = useUi((s) => s.banner);
  const connection = useUi((s) => s.connection);
  const error = banner ?? turnError;
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
            <strong>{HEADLINES[error.code ?? ''] ?? 'Something went wrong'}</strong>
            <span>{error.message}</span>
          </div>
          {SETTINGS_CODES.has(error.code ?? '') ? (
            <button type="button" className="button" onClick={() => useUi.getState().openSettings(true)}>
              Open Settings
            </button>
          ) : null}
          {banner ? (
            <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => useUi.getState().showBanner(null)}>
              ×
            </button>
          ) : null}
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
