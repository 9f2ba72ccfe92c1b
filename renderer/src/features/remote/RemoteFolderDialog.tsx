import { useEffect, useRef, useState } from 'react';
import type { RecentRemoteFolder, RemoteConnectInput, RemoteHostEntry, RemoteListing } from '#protocol';
import { Dialog } from '../../components/Dialog';
import {
  cancelRemoteConnect,
  closeRemoteHost,
  connectRemoteHost,
  listRemoteFolder,
  listRemoteHosts,
  newAttemptId,
  openRemoteWorkspace,
} from '../../actions/remote';
import { useRemoteDialog } from '../../stores/remote';
import { BrowseStep, HostKeyStep, HostStep, PassphraseStep } from './RemoteSteps';
import './remote.css';

type Step =
  | { kind: 'host' }
  | { kind: 'host-key'; host: string; fingerprint: string }
  | { kind: 'passphrase'; key: string; wrong: boolean }
  | { kind: 'browse'; listing: RemoteListing };

interface Attempt {
  host: string;
  /** Where to start browsing (a recent folder), else the home folder there. */
  path?: string;
  hostKeys: NonNullable<RemoteConnectInput['hostKeys']>;
  passphrases: Record<string, string>;
}

/**
 * *Open remote folder…*: a host (typed, from ~/.ssh/config, or a recent folder's), its host key and key passphrase
 * when asked, then its folders; the chosen one becomes the workspace (this page, or a new window in the app).
 */
export function RemoteFolderDialog() {
  const close = () => useRemoteDialog.getState().show(false);
  const [hosts, setHosts] = useState<{ hosts: RemoteHostEntry[]; recent: RecentRemoteFolder[] }>({ hosts: [], recent: [] });
  const [step, setStep] = useState<Step>({ kind: 'host' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [connection, setConnection] = useState<{ id: string; label: string } | null>(null);
  const attempt = useRef<Attempt>({ host: '', hostKeys: [], passphrases: {} });
  const kept = useRef<string | null>(null);
  kept.current = connection?.id ?? null;
  const closed = useRef(false);
  /** The connect under way (its attempt id), and whether the user stopped it or the dialog went away meanwhile. */
  const pending = useRef<{ id: string; stopped: boolean; abandoned: boolean } | null>(null);
  const [connecting, setConnecting] = useState(false);

  useEffect(() => {
    closed.current = false;
    void listRemoteHosts().then((r) => (r.ok ? setHosts(r.value) : setError(r.error)));
    // Opened from a sidebar row: connect to that folder's host and go to the folder.
    const first = useRemoteDialog.getState().start;
    if (first) start(first.host, first.path);
    // A connection the dialog did not turn into the workspace is closed with it.
    return () => {
      closed.current = true;
      if (kept.current) closeRemoteHost(kept.current);
      if (pending.current) {
        pending.current.abandoned = true;
        cancelRemoteConnect(pending.current.id);
      }
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- on opening only
  }, []);

  const browse = async (id: string, path: string): Promise<boolean> => {
    setBusy(true);
    setError(null);
    const listed = await listRemoteFolder(id, path);
    setBusy(false);
    if (listed.ok) setStep({ kind: 'browse', listing: listed.value });
    else setError(listed.error);
    return listed.ok;
  };

  const connect = async () => {
    const a = attempt.current;
    const mine = { id: newAttemptId(), stopped: false, abandoned: false };
    pending.current = mine;
    setBusy(true);
    setConnecting(true);
    setError(null);
    setNotice(null);
    const result = await connectRemoteHost({ host: a.host, attempt: mine.id, hostKeys: a.hostKeys, passphrases: a.passphrases });
    if (pending.current === mine) pending.current = null;
    setBusy(false);
    setConnecting(false);
    if (mine.stopped || mine.abandoned) {
      // Stopped by the user, or the dialog went away: a connection that still came up is nobody's.
      if (result.ok && result.value.status === 'connected') closeRemoteHost(result.value.connection);
      if (!mine.abandoned) {
        setStep({ kind: 'host' });
        setNotice(`Stopped connecting to ${a.host}.`);
        requestAnimationFrame(() => document.getElementById('remote-host-input')?.focus());
      }
      return;
    }
    if (!result.ok) {
      setStep({ kind: 'host' });
      setError(result.error);
      return;
    }
    const r = result.value;
    // Closed while it connected: the connection is nobody's, so it is closed now.
    if (closed.current) {
      if (r.status === 'connected') closeRemoteHost(r.connection);
      return;
    }
    if (r.status === 'host-key') setStep({ kind: 'host-key', host: r.host, fingerprint: r.fingerprint });
    else if (r.status === 'passphrase') setStep({ kind: 'passphrase', key: r.key, wrong: r.wrong });
    else {
      setConnection({ id: r.connection, label: r.label });
      setNotice(r.notes.length ? r.notes.join(' ') : null);
      if (await browse(r.connection, a.path ?? r.home)) return;
      // A recent folder that is gone: browse from the home folder there, saying why.
      const listed = a.path ? await listRemoteFolder(r.connection, r.home) : null;
      if (listed?.ok) {
        setStep({ kind: 'browse', listing: listed.value });
        setError(`${a.path} could not be listed on ${r.label}; showing the home folder instead.`);
      }
    }
  };

  const stop = () => {
    const now = pending.current;
    if (!now) return;
    now.stopped = true;
    cancelRemoteConnect(now.id);
  };

  const start = (host: string, path?: string) => {
    if (connection) closeRemoteHost(connection.id);
    setConnection(null);
    attempt.current = { host, ...(path ? { path } : {}), hostKeys: [], passphrases: {} };
    void connect();
  };

  const open = async () => {
    if (!connection || step.kind !== 'browse') return;
    setBusy(true);
    setError(null);
    const opened = await openRemoteWorkspace(connection.id, step.listing.path);
    setBusy(false);
    if (!opened.ok) return setError(opened.error);
    // The host owns the connection now.
    setConnection(null);
    kept.current = null;
    if (opened.value === 'window') close();
  };

  const folderName = step.kind === 'browse' ? step.listing.path.split('/').filter(Boolean).pop() || '/' : '';
  return (
    <Dialog
      title="Open remote folder"
      onClose={close}
      className="remote-dialog"
      closeOnBackdrop={false}
      initialFocus="#remote-host-input"
      footer={
        <>
          {step.kind === 'browse' ? (
            <button type="button" className="button" disabled={busy} onClick={() => setStep({ kind: 'host' })}>
              Another host
            </button>
          ) : null}
          <span className="remote-footer-gap" />
          <button type="button" className="button" onClick={close}>
            Cancel
          </button>
          {step.kind === 'browse' ? (
            <button
              type="button"
              className="button button-primary remote-open"
              disabled={busy}
              title={step.kind === 'browse' ? step.listing.path : undefined}
              onClick={() => void open()}
            >
              Open {folderName}
            </button>
          ) : null}
        </>
      }
    >
      {notice ? <p className="remote-hint">{notice}</p> : null}
      {error ? (
        <p className="remote-error" role="alert">
          {error}
        </p>
      ) : null}
      {step.kind === 'host' ? <HostStep hosts={hosts.hosts} recent={hosts.recent} initial={attempt.current.host} busy={busy} onConnect={start} /> : null}
      {step.kind === 'host-key' ? (
        <HostKeyStep
          host={step.host}
          fingerprint={step.fingerprint}
          onAnswer={(answer) => {
            if (answer === 'cancel') {
              setStep({ kind: 'host' });
              setError(`Not connected: the host key of ${step.host} was not accepted.`);
              return;
            }
            attempt.current.hostKeys = [...attempt.current.hostKeys, { host: step.host, fingerprint: step.fingerprint, remember: answer === 'remember' }];
            void connect();
          }}
        />
      ) : null}
      {step.kind === 'passphrase' ? (
        <PassphraseStep
          keyFile={step.key}
          wrong={step.wrong}
          onUnlock={(passphrase) => {
            attempt.current.passphrases = { ...attempt.current.passphrases, [step.key]: passphrase };
            void connect();
          }}
          onCancel={() => setStep({ kind: 'host' })}
        />
      ) : null}
      {step.kind === 'browse' && connection ? (
        <BrowseStep label={connection.label} listing={step.listing} busy={busy} onGo={(path) => void browse(connection.id, path)} />
      ) : null}
      {busy ? (
        <div className="remote-busy-row">
          <p className="remote-hint remote-busy" role="status">
            {connecting ? `Connecting to ${attempt.current.host}…` : 'Working…'}
          </p>
          {connecting ? (
            <button type="button" className="button button-small" onClick={stop}>
              Stop
            </button>
          ) : null}
        </div>
      ) : null}
    </Dialog>
  );
}

/** Mounted at the app's root: the dialog while it is open. */
export function RemoteLayer() {
  const open = useRemoteDialog((s) => s.open);
  return open ? <RemoteFolderDialog /> : null;
}
