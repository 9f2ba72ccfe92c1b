import { useEffect, useState } from 'react';
import type { SessionGrants as Grants } from '#protocol';
import { loadSessionGrants, revokeSessionGrant } from '../../../actions/settings-pages';
import { useSessions } from '../../../stores/sessions';

/** Settings → Permissions: what "Allow for session" allowed in the open session, each one revocable (the next call asks again). */
export function SessionGrants() {
  const sessionId = useSessions((s) => s.currentId);
  const [grants, setGrants] = useState<Grants | null>(null);
  useEffect(() => {
    setGrants(null);
    if (sessionId) void loadSessionGrants(sessionId).then((g) => g && setGrants(g));
  }, [sessionId]);
  const revoke = (kind: 'rule' | 'domain', value: string) => {
    if (sessionId) void revokeSessionGrant(sessionId, kind, value).then((g) => g && setGrants(g));
  };
  const entries = grants
    ? [...grants.rules.map((value) => ({ kind: 'rule' as const, value })), ...grants.domains.map((value) => ({ kind: 'domain' as const, value }))]
    : [];
  return (
    <section className="settings-section" aria-labelledby="grants-h">
      <h4 id="grants-h">Allowed for this session</h4>
      <p className="form-note">What you allowed with Allow for session. Revoke one and the next call it covered asks again; nothing here is saved to a file.</p>
      {!sessionId ? (
        <p className="form-note">No session is open.</p>
      ) : !grants ? null : entries.length === 0 ? (
        <p className="form-note">Nothing yet.</p>
      ) : (
        <ul className="rule-list" aria-label="Allowed for this session">
          {entries.map(({ kind, value }) => (
            <li key={`${kind}:${value}`} className="rule-row">
              <span className="rule-decision rule-allow">{kind === 'rule' ? 'allow' : 'host'}</span>
              <code className="rule-pattern">{value}</code>
              <button type="button" className="link-button" aria-label={`Revoke ${value}`} onClick={() => revoke(kind, value)}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
