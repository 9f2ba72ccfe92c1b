import { useEffect, useState } from 'react';
import type { CheckpointStorage } from '#protocol';
import { Spinner } from '../../components/Icon';
import { checkpointStorage, cleanUpCheckpoints, getReviewMode, setCheckpointLimits, setReviewMode } from '../../actions/checkpoints';
import { formatBytes } from '#protocol/helpers/units';
import { plural } from './format';

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

/** Settings: how much the workspace's checkpoints take, their limits, Clean up, and review mode. */
export function CheckpointSettings() {
  const [storage, setStorage] = useState<CheckpointStorage | null>(null);
  const [review, setReview] = useState<boolean | null>(null);
  const [limit, setLimit] = useState('');
  const [maxFile, setMaxFile] = useState('');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const show = (s: CheckpointStorage) => {
    setStorage(s);
    setLimit(String(+(s.limitBytes / GIB).toFixed(2)));
    setMaxFile(String(+(s.maxFileBytes / MIB).toFixed(2)));
  };
  useEffect(() => {
    void checkpointStorage().then((r) => (r.ok ? show(r.value) : setMessage(r.error)));
    void getReviewMode().then((r) => r.ok && setReview(r.value));
  }, []);
  const run = async <T extends CheckpointStorage>(work: () => Promise<{ ok: true; value: T } | { ok: false; error: string }>, done: (s: T) => string) => {
    setBusy(true);
    const r = await work();
    setBusy(false);
    if (r.ok) {
      show(r.value);
      setMessage(done(r.value));
    } else setMessage(r.error);
  };
  const saveLimits = () => {
    const limitBytes = Math.round(Number(limit) * GIB);
    const maxFileBytes = Math.round(Number(maxFile) * MIB);
    if (!(limitBytes > 0) || !(maxFileBytes > 0)) return setMessage('Give both limits as positive numbers.');
    void run(
      () => setCheckpointLimits({ limitBytes, maxFileBytes }),
      () => 'Limits saved.',
    );
  };
  return (
    <section className="checkpoint-settings" aria-label="Checkpoints">
      {!storage ? (
        <p role="status">{message ?? <Spinner size={12} />}</p>
      ) : !storage.status.available ? (
        <p className="form-note">{storage.status.reason}</p>
      ) : (
        <>
          <p className="form-note" aria-live="polite">
            This workspace&apos;s checkpoints take <strong>{formatBytes(storage.bytes)}</strong> of {formatBytes(storage.limitBytes)} (
            {plural(storage.checkpoints, 'checkpoint')} in {plural(storage.sessions, 'session')}
            {storage.deletedSessions ? `, ${storage.deletedSessions} of them deleted` : ''}). Stored in <code>{storage.path}</code>, never in the workspace.
          </p>
          {storage.status.watch ? (
            <p className="form-note" role="note" aria-label="File watcher">
              {storage.status.watch}
            </p>
          ) : null}
          <div className="checkpoint-limits">
            <label>
              <span>Storage limit (GiB)</span>
              <input type="number" min="0.1" step="0.1" value={limit} onChange={(e) => setLimit(e.target.value)} />
            </label>
            <label>
              <span>Largest file captured (MiB)</span>
              <input type="number" min="0.01" step="1" value={maxFile} onChange={(e) => setMaxFile(e.target.value)} />
            </label>
            <button type="button" className="button" disabled={busy} onClick={saveLimits}>
              Save limits
            </button>
            <button
              type="button"
              className="button"
              disabled={busy}
              onClick={() => void run(cleanUpCheckpoints, (s) => `Cleaned up: ${formatBytes(s.freedBytes)} freed.`)}
            >
              {busy ? 'Working…' : 'Clean up'}
            </button>
          </div>
          {message ? (
            <p className="form-note" role="status">
              {message}
            </p>
          ) : null}
          <p className="form-note">Clean up removes the checkpoints of deleted sessions, then the oldest ones while the store is over its limit.</p>
        </>
      )}
      <label className="checkpoint-review-toggle">
        <input
          type="checkbox"
          checked={review ?? false}
          disabled={review === null}
          onChange={(e) => void setReviewMode(e.target.checked).then((r) => r.ok && setReview(r.value))}
        />
        <span>
          <strong>Review mode</strong>: show each Write and Edit as hunks to accept or reject before anything is written
        </span>
      </label>
    </section>
  );
}
