import type { Duplex } from 'node:stream';
import { type AnyAuthMethod, Client } from 'ssh2';
import { EnvironmentError } from '#contract/environment';
import { checkHostKey, fingerprint, knownHostsLine } from './known-hosts';

/** A private key to offer, with its passphrase when it has one. */
export interface SshIdentity {
  key: Buffer | string;
  passphrase?: string;
  /** Where it came from, for messages. */
  file?: string;
}

/** Where to connect and how to prove who we are. */
export interface SshTarget {
  host: string;
  port: number;
  username: string;
  /** A private key (PEM/OpenSSH); with `passphrase` when it has one. */
  privateKey?: Buffer | string;
  passphrase?: string;
  /** More keys, offered in order after `privateKey` (IdentityFile lines). */
  identities?: readonly SshIdentity[];
  /** The SSH agent's socket (SSH_AUTH_SOCK). */
  agent?: string;
  /** known_hosts files to check the server's key against (never accepted without a match or the user's yes). */
  knownHostsFiles: readonly string[];
  /** Asked for a host known_hosts does not list: true accepts it for this connection. Absent: refused. */
  acceptUnknownHost?: (host: string, fingerprint: string, line: string) => Promise<boolean>;
  /** Hosts to go through first (ProxyJump), nearest first: each is reached through the one before it. */
  jumps?: readonly SshTarget[];
  readyTimeoutMs?: number;
  /** Stops connecting (the user cancelled a slow connect): the attempt ends with ECANCELED. */
  signal?: AbortSignal;
}

function cancelled(label: string): EnvironmentError {
  return new EnvironmentError('ECANCELED', `Connecting to ${label} was stopped.`);
}

/** `user@host`, with `:port` when not 22. */
export function targetLabel(target: Pick<SshTarget, 'username' | 'host' | 'port'>): string {
  return `${target.username}@${target.host}${target.port === 22 ? '' : `:${target.port}`}`;
}

function authMethods(target: SshTarget): AnyAuthMethod[] {
  const username = target.username;
  const methods: AnyAuthMethod[] = [];
  if (target.agent) methods.push({ type: 'agent', username, agent: target.agent });
  const keys: SshIdentity[] = [
    ...(target.privateKey ? [{ key: target.privateKey, ...(target.passphrase ? { passphrase: target.passphrase } : {}) }] : []),
    ...(target.identities ?? []),
  ];
  for (const identity of keys) {
    methods.push({ type: 'publickey', username, key: identity.key, ...(identity.passphrase ? { passphrase: identity.passphrase } : {}) });
  }
  return methods;
}

/** One hop: connect a client over `sock` (a stream through the previous hop) or TCP, checking the host key. */
function connectOne(target: SshTarget, sock?: Duplex): Promise<Client> {
  const label = targetLabel(target);
  const client = new Client();
  let refusal: string | null = null;
  const signal = target.signal;
  return new Promise<Client>((resolve, reject) => {
    if (signal?.aborted) return reject(cancelled(label));
    const stop = () => {
      reject(cancelled(label));
      client.end();
      client.destroy();
    };
    signal?.addEventListener('abort', stop, { once: true });
    client.once('ready', () => {
      signal?.removeEventListener('abort', stop);
      // Small requests answered one at a time (a stat, a readdir page): without TCP_NODELAY each waits out Nagle's
      // algorithm against the server's delayed ACK, about 40 ms per round trip.
      client.setNoDelay(true);
      resolve(client);
    });
    // Kept for the client's life, not once: ssh2 can emit a second error (a handshake cut after a timeout), and an
    // error with no listener would take the whole process down. After the first, the promise is settled; the
    // connection's owner adds its own listener once it is ready.
    client.on('error', (error) => {
      const code = refusal ? 'EHOSTKEY' : /authentication/i.test(error.message) ? 'EACCES' : 'ECONNREFUSED';
      const auth =
        code === 'EACCES'
          ? ` (tried: ${
              authMethods(target).length
                ? authMethods(target)
                    .map((m) => m.type)
                    .join(', ')
                : 'no key and no SSH agent'
            })`
          : '';
      signal?.removeEventListener('abort', stop);
      reject(new EnvironmentError(code, refusal ?? `Could not connect to ${label}: ${error.message}${auth}`));
    });
    client.connect({
      host: target.host,
      port: target.port,
      username: target.username,
      ...(sock ? { sock } : {}),
      authHandler: authMethods(target),
      readyTimeout: target.readyTimeoutMs ?? 20_000,
      keepaliveInterval: 15_000,
      hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
        void (async () => {
          const verdict = await checkHostKey(target.knownHostsFiles, target.host, target.port, key);
          const print = fingerprint(key);
          if (verdict.status === 'known') return verify(true);
          if (verdict.status === 'changed') {
            refusal = `The host key of ${label} has CHANGED (now ${print}; ${verdict.file} line ${verdict.line} lists another). Someone may be intercepting the connection, or the server was reinstalled. Deft refuses it; check with the server's administrator, then remove the old line from ${verdict.file}.`;
            return verify(false);
          }
          const line = knownHostsLine(target.host, target.port, key);
          if (target.acceptUnknownHost && (await target.acceptUnknownHost(label, print, line))) return verify(true);
          refusal = `${label} is not a known host: its key fingerprint is ${print}. If that is the server's key, accept it by adding this line to ~/.ssh/known_hosts (or connect once with ssh):\n${line}`;
          verify(false);
        })().catch(() => verify(false));
      },
    });
  });
}

function forward(through: Client, host: string, port: number, label: string): Promise<Duplex> {
  return new Promise((resolve, reject) =>
    through.forwardOut('127.0.0.1', 0, host, port, (error, stream) =>
      error ? reject(new EnvironmentError('ECONNREFUSED', `The jump host ${label} could not reach ${host}:${port}: ${error.message}`)) : resolve(stream),
    ),
  );
}

/**
 * Connect to `target`, through its jump hosts when it has any (each hop's host key checked like the target's).
 * Returns the target's client and every client it depends on, nearest first, to end them together.
 */
export async function dial(target: SshTarget): Promise<{ client: Client; chain: Client[] }> {
  const chain: Client[] = [];
  try {
    let previous: Client | null = null;
    let previousLabel = '';
    for (const hop of [...(target.jumps ?? []), target]) {
      if (target.signal?.aborted) throw cancelled(targetLabel(target));
      const sock: Duplex | undefined = previous ? await forward(previous, hop.host, hop.port, previousLabel) : undefined;
      previous = await connectOne(target.signal ? { ...hop, signal: target.signal } : hop, sock);
      previousLabel = targetLabel(hop);
      chain.push(previous);
    }
    return { client: previous!, chain };
  } catch (error) {
    for (const client of chain.reverse()) client.end();
    throw error;
  }
}
