import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { posix } from 'node:path';
import type { Environment, RelayThere } from '#contract/environment';
import type { NetworkPolicy } from '#contract/sandbox';
import { addressCheck } from './address-check';
import { domainAllows } from './domains';
import { SANDBOX_PROXY_PORT } from './linux-network';
import { NetworkProxy, type ProxyPass, type Resolver, proxyEnvironment } from './proxy';
import { runThere } from './remote-facts';
import type { SandboxSettings } from './settings';

/** A remote sandbox's way out: Deft's proxy here, reached there through a socket the SSH connection made. */
export interface RemoteRelay {
  /** The socket there (in the sandbox's private folder, 0600), bound into each command's bubblewrap. */
  socketPath: string;
  socat: string;
  proxy: NetworkProxy;
  there: RelayThere;
}

/** Why commands there have no network; `final` when trying again cannot help (a refusal, a missing program). */
export interface Unavailable {
  reason: string;
  final: boolean;
}

/**
 * Inside bubblewrap, before the command: socat carries 127.0.0.1:3128 of the command's own network namespace to the
 * relay socket (as this machine's shared sandbox network does, linux-network.ts), and the command starts once it
 * listens (the command keeps its stdin: the wait reads /proc/net/tcp in a loop of its own). It runs as the command
 * does, in its namespaces: all it can reach is the socket, which leads to the proxy.
 */
const RELAY = `s=$1; p=$2; shift 2
"$s" TCP-LISTEN:${SANDBOX_PROXY_PORT},bind=127.0.0.1,fork,reuseaddr "UNIX-CONNECT:$p" </dev/null >/dev/null 2>&1 &
i=0; up=
while [ $i -lt 300 ] && [ -z "$up" ]; do
  while read -r l; do case " $l " in *" 0100007F:${SANDBOX_PROXY_PORT.toString(16).toUpperCase().padStart(4, '0')} 00000000:0000 0A "*) up=1;; esac; done < /proc/net/tcp
  [ -n "$up" ] || { i=$((i+1)); sleep 0.01 2>/dev/null || sleep 1; }
done
[ -n "$up" ] || echo "Deft's sandbox: the network relay did not start; this command has no network." >&2
exec "$@"`;

/**
 * The private folder for relay sockets there: made 0700, and refused unless it is the user's own folder (no link). Then
 * the sockets of connections gone (sshd leaves the file behind) are removed: on Linux, a socket nothing listens on any
 * more is not in /proc/net/unix (a live one, another Deft's, is; elsewhere nothing is removed).
 */
const MAKE_DIR = `umask 077; mkdir -p "$2" && [ ! -L "$1" ] && [ -O "$1" ] && [ ! -L "$2" ] && [ -O "$2" ] && chmod 0700 "$1" "$2" || exit 1
if [ -r /proc/net/unix ] && command -v awk >/dev/null; then for s in "$2"/proxy-*.sock; do
  [ -S "$s" ] && ! awk -v p="$s" '$NF == p { found = 1 } END { exit !found }' /proc/net/unix && rm -f "$s"
done; fi`;

/** A port nothing can listen on: a probe connection to it tells a server that forbids connections from one that makes them. */
const PROBE_PORT = 0;

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*$/;

/**
 * Resolves a name with the other machine's resolver (`getent ahosts`): where a remote command's connection goes is
 * decided by that machine's DNS, and the proxy connects (from there) to the address it checked, never to a second lookup.
 */
export function remoteResolver(environment: Environment): Resolver {
  return async (host) => {
    if (!HOST_NAME.test(host)) throw Object.assign(new Error('not a host name'), { code: 'EINVAL' });
    const out = await runThere(environment, 'exec getent ahosts "$1"', [host], { ownProcess: true });
    const addresses = [...new Set(out.split('\n').map((line) => line.trim().split(/\s+/)[0] ?? ''))].filter((a) => isIP(a));
    if (!addresses.length) throw Object.assign(new Error(`not found on ${environment.label}`), { code: 'ENOTFOUND' });
    return addresses;
  };
}

/**
 * The network of the sandbox on another machine. The policy stays here: Deft's proxy (proxy.ts) decides on every
 * connection with this machine's settings and questions, exactly as for a local command; only the lookups and the
 * connections themselves happen there (the name resolved by that machine, the connection made by its sshd). One relay
 * per SSH connection, made again after a reconnect; when it cannot be made (sshd refuses forwarding, no socat there),
 * commands there get no network, and `unavailable` says why.
 */
export class RemoteNetwork {
  private relay: Promise<RemoteRelay | Unavailable> | null = null;
  private refusal: string | null = null;

  constructor(
    private readonly environment: Environment,
    /** The remote sandbox's private folder there. */
    private readonly dir: string,
  ) {}

  /** Why commands there have no network (null when they have the relay, or before it was tried). */
  get unavailable(): string | null {
    return this.refusal;
  }

  /** The relay for the current connection (made on first use and after the connection was reopened), or why there is none. */
  async current(socat: string | undefined): Promise<RemoteRelay | Unavailable> {
    const previous = this.relay;
    if (previous) {
      const relay = await previous;
      if ('reason' in relay ? relay.final : relay.there.alive) return relay;
      // Another command got here first and is making the new one: share it.
      if (this.relay !== previous) return this.current(socat);
      if (!('reason' in relay)) {
        relay.there.close();
        void relay.proxy.close();
      }
    }
    this.relay = this.start(socat);
    const relay = await this.relay;
    this.refusal = 'reason' in relay ? relay.reason : null;
    return relay;
  }

  private async start(socat: string | undefined): Promise<RemoteRelay | Unavailable> {
    const env = this.environment;
    if (!env.listenThere || !env.connectThere) return { reason: `the connection to ${env.label} cannot forward connections`, final: true };
    if (!socat)
      return { reason: `socat is not installed on ${env.label} (install it there, e.g. sudo apt-get install socat, then open the folder again)`, final: true };
    const netDir = posix.join(this.dir, 'net');
    try {
      await runThere(env, `${MAKE_DIR}; echo ok`, [this.dir, netDir]).then((out) => {
        if (!out.includes('ok')) throw new Error(`its private folder ${netDir} could not be made`);
      });
    } catch (error) {
      return { reason: (error as Error).message, final: false };
    }
    const socketPath = posix.join(netDir, `proxy-${randomBytes(6).toString('hex')}.sock`);
    const connect = env.connectThere.bind(env);
    const proxy = NetworkProxy.unbound({ resolve: remoteResolver(env), dial: (address, port) => connect(address, port) });
    // Whether sshd there makes connections at all (AllowTcpForwarding), asked beside the socket rather than found
    // by the first command that tries: a refusal there means no network, said up front.
    const probe = connect('127.0.0.1', PROBE_PORT).then(
      (stream) => void stream.destroy(),
      (error: unknown) => error,
    );
    try {
      const there = await env.listenThere(socketPath, (stream) => proxy.serve(stream));
      const refused = await probe;
      if ((refused as { code?: string } | undefined)?.code === 'EACCES') {
        there.close();
        void proxy.close();
        return { reason: `${env.label} does not make connections for Deft (${(refused as Error).message}; sshd's AllowTcpForwarding)`, final: true };
      }
      return { socketPath, socat, proxy, there };
    } catch (error) {
      void proxy.close();
      // A refusal stays (said once, in the status); a connection lost meanwhile is tried again with the next one.
      const final = (error as { code?: string }).code === 'EACCES';
      return { reason: `${env.label} does not forward sockets for Deft (${(error as Error).message}; sshd's AllowStreamLocalForwarding)`, final };
    }
  }

  /**
   * One command's network: a pass to the proxy with the settings' allowed hosts, then `ask` (the session's questions,
   * a server's own policy), the address check on the name as that machine resolves it; the argv that starts it (the
   * relay, then the command) and the variables that send it to the proxy.
   */
  plan(
    relay: RemoteRelay,
    settings: SandboxSettings,
    ask: NetworkPolicy,
    argv: readonly string[],
  ): { pass: ProxyPass; argv: string[]; env: Record<string, string>; bind: string } {
    const guarded: NetworkPolicy = async (target, signal) => {
      if (settings.allowedDomains.some((entry) => domainAllows(entry, target.host, target.port))) return { allowed: true };
      return ask(target, signal);
    };
    const pass = relay.proxy.register(guarded, addressCheck(settings));
    return {
      pass,
      argv: ['/bin/sh', '-c', RELAY, 'sh', relay.socat, relay.socketPath, ...argv],
      env: proxyEnvironment(NetworkProxy.url(pass.token, SANDBOX_PROXY_PORT)),
      bind: relay.socketPath,
    };
  }

  async close(): Promise<void> {
    const relay = await this.relay?.catch(() => null);
    this.relay = null;
    if (relay && !('reason' in relay)) {
      relay.there.close();
      await relay.proxy.close();
    }
  }
}
