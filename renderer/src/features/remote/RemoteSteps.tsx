import { type KeyboardEvent, useEffect, useRef, useState } from 'react';
import type { RecentRemoteFolder, RemoteHostEntry, RemoteListing } from '#protocol';
import { Icon } from '../../components/Icon';

/** Arrow keys move between the buttons of a list (Tab leaves it). */
function arrowKeys(e: KeyboardEvent<HTMLElement>): void {
  if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
  const buttons = [...e.currentTarget.querySelectorAll<HTMLButtonElement>('button')];
  const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
  const next = buttons[Math.max(0, Math.min(buttons.length - 1, at + (e.key === 'ArrowDown' ? 1 : -1)))];
  if (next) {
    e.preventDefault();
    next.focus();
  }
}

/** The first step: type a host, or pick one of ~/.ssh/config's or a folder opened before. */
export function HostStep({
  hosts,
  recent,
  initial,
  busy,
  onConnect,
}: {
  hosts: RemoteHostEntry[];
  recent: RecentRemoteFolder[];
  initial: string;
  busy: boolean;
  onConnect: (host: string, path?: string) => void;
}) {
  const [host, setHost] = useState(initial);
  return (
    <div className="remote-step">
      <form
        id="remote-host"
        className="remote-host-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!busy && host.trim()) onConnect(host.trim());
        }}
      >
        <label htmlFor="remote-host-input">Host</label>
        <div className="remote-row">
          <input
            id="remote-host-input"
            value={host}
            maxLength={255}
            placeholder="user@host:port or a ~/.ssh/config alias"
            autoComplete="off"
            spellCheck={false}
            onChange={(e) => setHost(e.target.value)}
          />
          <button type="submit" className="button button-primary" disabled={busy || !host.trim()}>
            {busy ? 'Connecting…' : 'Connect'}
          </button>
        </div>
      </form>
      {recent.length ? (
        <section aria-labelledby="remote-recent-title">
          <h3 id="remote-recent-title">Recent remote folders</h3>
          <ul className="remote-list" onKeyDown={arrowKeys}>
            {recent.map((r) => (
              <li key={r.label}>
                <button type="button" className="remote-item" disabled={busy} onClick={() => onConnect(r.host, r.path)}>
                  <Icon name="server" />
                  <span className="remote-item-name">{r.label}</span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <section aria-labelledby="remote-hosts-title">
        <h3 id="remote-hosts-title">Hosts in ~/.ssh/config</h3>
        {hosts.length ? (
          <ul className="remote-list" onKeyDown={arrowKeys}>
            {hosts.map((h) => (
              <li key={h.alias}>
                <button type="button" className="remote-item" disabled={busy} onClick={() => onConnect(h.alias)}>
                  <Icon name="server" />
                  <span className="remote-item-name">{h.alias}</span>
                  <span className="remote-item-detail">{h.detail}</span>
                </button>
              </li>
            ))}
          </ul>
        ) : (
          <p className="remote-hint">No Host entries there: type a host above.</p>
        )}
      </section>
    </div>
  );
}

/** An unknown host key: its fingerprint, and the three answers (a changed key never gets here: it is refused). */
export function HostKeyStep({
  host,
  fingerprint,
  onAnswer,
}: {
  host: string;
  fingerprint: string;
  onAnswer: (answer: 'once' | 'remember' | 'cancel') => void;
}) {
  return (
    <div className="remote-step remote-host-key" role="group" aria-labelledby="remote-key-title">
      <h3 id="remote-key-title">Unknown host key</h3>
      <p>
        <strong>{host}</strong> is not in your known_hosts. Check that this is the server’s key fingerprint (ask its administrator, or run{' '}
        <code>ssh-keygen -lf</code> on its host key) before you accept it:
      </p>
      <code className="remote-fingerprint">{fingerprint}</code>
      <div className="remote-actions">
        <button type="button" className="button button-primary" onClick={() => onAnswer('remember')}>
          Accept and remember
        </button>
        <button type="button" className="button" onClick={() => onAnswer('once')}>
          Accept once
        </button>
        {/* The focus starts here: an Enter pressed while it connected accepts nothing. */}
        <button type="button" className="button" autoFocus onClick={() => onAnswer('cancel')}>
          Reject
        </button>
      </div>
      <p className="remote-hint">“Remember” adds it to ~/.ssh/known_hosts; “once” trusts it for this connection only.</p>
    </div>
  );
}

/** A key with a passphrase: typed here, sent to this machine's Deft only, kept for this connection. */
export function PassphraseStep({
  keyFile,
  wrong,
  onUnlock,
  onCancel,
}: {
  keyFile: string;
  wrong: boolean;
  onUnlock: (passphrase: string) => void;
  onCancel: () => void;
}) {
  const [value, setValue] = useState('');
  return (
    <form
      className="remote-step"
      onSubmit={(e) => {
        e.preventDefault();
        onUnlock(value);
      }}
    >
      <label htmlFor="remote-passphrase">
        Passphrase for <code>{keyFile}</code>
      </label>
      {wrong ? (
        <p className="remote-error" role="alert">
          That passphrase did not unlock the key.
        </p>
      ) : null}
      <div className="remote-row">
        <input id="remote-passphrase" type="password" autoFocus value={value} autoComplete="off" onChange={(e) => setValue(e.target.value)} />
        <button type="submit" className="button button-primary">
          Unlock
        </button>
        <button type="button" className="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** A folder on the host: its subfolders (capped by the host), up, and a path to type. */
export function BrowseStep({ label, listing, busy, onGo }: { label: string; listing: RemoteListing; busy: boolean; onGo: (path: string) => void }) {
  const [typed, setTyped] = useState(listing.path);
  const [shownFor, setShownFor] = useState(listing.path);
  if (shownFor !== listing.path) {
    setShownFor(listing.path);
    setTyped(listing.path);
  }
  const list = useRef<HTMLUListElement>(null);
  const pathInput = useRef<HTMLInputElement>(null);
  // A new listing: the focus goes to its first folder (the button that led here is gone), else to the path.
  useEffect(() => {
    (list.current?.querySelector('button') ?? pathInput.current)?.focus();
  }, [listing.path]);
  const join = (name: string) => (listing.path === '/' ? `/${name}` : `${listing.path}/${name}`);
  return (
    <div className="remote-step">
      <p className="remote-where">
        <Icon name="server" /> {label}
      </p>
      <form
        className="remote-row"
        onSubmit={(e) => {
          e.preventDefault();
          if (typed.trim()) onGo(typed.trim());
        }}
      >
        <label htmlFor="remote-path" className="visually-hidden">
          Folder
        </label>
        <input
          id="remote-path"
          ref={pathInput}
          value={typed}
          maxLength={4096}
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => setTyped(e.target.value)}
        />
        <button type="submit" className="button" disabled={busy}>
          Go
        </button>
        <button type="button" className="button" disabled={busy || listing.parent === null} onClick={() => listing.parent && onGo(listing.parent)}>
          Up
        </button>
      </form>
      <ul ref={list} className="remote-list remote-folders" aria-label={`Folders in ${listing.path}`} aria-busy={busy} onKeyDown={arrowKeys}>
        {listing.folders.map((name) => (
          <li key={name}>
            <button type="button" className="remote-item" disabled={busy} onClick={() => onGo(join(name))}>
              <Icon name="folder" />
              <span className="remote-item-name">{name}</span>
            </button>
          </li>
        ))}
      </ul>
      <p className="remote-hint">
        {listing.folders.length ? '' : 'No subfolders. '}
        {listing.more ? `Only the first ${listing.folders.length.toLocaleString()} folders are listed: type a path to go further. ` : ''}
        {listing.files
          ? `${listing.files.toLocaleString()} other ${listing.files === 1 ? 'entry' : 'entries'} (files, or names with control characters) not shown.`
          : ''}
      </p>
    </div>
  );
}
