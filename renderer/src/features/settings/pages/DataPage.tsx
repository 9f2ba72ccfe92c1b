import { type ComponentType, useEffect, useState } from 'react';
import type { DataInfo } from '#protocol';
import { DeftError } from '#protocol/helpers/bridge';
import { dataInfo } from '../../../actions/settings';
import { formatBytes } from '#protocol/helpers/units';

/** Where sessions live and the disk they use. */
function SessionsData() {
  const [info, setInfo] = useState<DataInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () => {
    setError(null);
    dataInfo().then(setInfo, (e: unknown) => setError(DeftError.from(e).detail));
  };
  useEffect(load, []);
  if (error) {
    return (
      <p className="form-error" role="alert">
        {error}
      </p>
    );
  }
  if (!info) return <p className="form-note">Measuring…</p>;
  const more = info.partial ? ' or more' : '';
  return (
    <section className="settings-section" aria-labelledby="data-sessions">
      <h4 id="data-sessions">Sessions</h4>
      <dl className="facts">
        <dt>Deft&apos;s folder</dt>
        <dd>
          <code>{info.home}</code>
        </dd>
        <dt>This workspace&apos;s sessions</dt>
        <dd>
          <code>{info.sessionsDir}</code>
        </dd>
        <dt>Sessions here</dt>
        <dd>{info.sessionCount.toLocaleString('en-US')}</dd>
        <dt>Disk used here</dt>
        <dd>
          {formatBytes(info.workspaceBytes)}
          {more}
        </dd>
        <dt>All workspaces&apos; sessions</dt>
        <dd>
          {formatBytes(info.allSessionsBytes)}
          {more}
        </dd>
      </dl>
      <p className="form-note">
        Each session is a folder: its log, the images and files you attached, tool output kept in full, and background task logs. Deleting a session from the
        sidebar removes its folder.
      </p>
      <button type="button" className="button" onClick={load}>
        Measure again
      </button>
    </section>
  );
}

/** Sections of the Data page, in order; another kind of stored data adds its section here. */
export const dataSections: ComponentType[] = [SessionsData];

export function DataPage() {
  return (
    <div className="settings-form">
      {dataSections.map((Section, i) => (
        <Section key={i} />
      ))}
    </div>
  );
}
