import { userInfo } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type ReconnectPolicy, SshEnvironment } from '#infra/environment/ssh/ssh-environment';
import { tempDir } from './harness';
import { type TestSshd, startSshd } from './sshd';

export interface SshToTempHome {
  /** The connection, once the file's tests start. */
  readonly ssh: SshEnvironment;
  /** The folder here that the sshd's user sees as their home. */
  readonly remoteHome: string;
  /** Where a path under the remote user's home is on this machine. */
  here(pathThere: string): string;
  /** Another connection to the same server (as a new Deft process makes), closed after the file's tests. */
  connect(policy?: ReconnectPolicy): Promise<SshEnvironment>;
  /** Kill the server's processes for every open connection (a dropped link); it keeps listening. */
  killConnections(): Promise<number>;
}

/**
 * One test sshd for a test file, its user's home bound to a temp folder here (so what Deft writes under the remote
 * home is found and checked here), and an SshEnvironment connected to it. Call at a test file's top level.
 */
export function sshToTempHome(prefix: string): SshToTempHome {
  const homeThere = userInfo().homedir;
  let sshd: TestSshd | undefined;
  const state = {} as { ssh: SshEnvironment; remoteHome: string };
  const others: SshEnvironment[] = [];
  const connect = async (policy?: ReconnectPolicy) => {
    if (!sshd) throw new Error('The test sshd has not started.');
    const target = { host: '127.0.0.1', port: sshd.port, username: sshd.username, privateKey: sshd.privateKey, knownHostsFiles: [sshd.knownHosts] };
    return SshEnvironment.connect(target, undefined, policy);
  };
  beforeAll(async () => {
    state.remoteHome = await tempDir(prefix);
    const started = await startSshd({ binds: [{ from: state.remoteHome, to: homeThere }] });
    if (!started) throw new Error('OpenSSH (openssh-server) is not installed: apt-get install openssh-server openssh-client');
    sshd = started;
    state.ssh = await connect();
  }, 30_000);
  afterAll(async () => {
    await Promise.all([state.ssh, ...others.splice(0)].map((ssh) => ssh?.close()));
    await sshd?.stop();
  });
  return {
    get ssh() {
      return state.ssh;
    },
    get remoteHome() {
      return state.remoteHome;
    },
    here: (pathThere) => join(state.remoteHome, relative(homeThere, pathThere)),
    connect: async (policy) => {
      const ssh = await connect(policy);
      others.push(ssh);
      return ssh;
    },
    killConnections: async () => (sshd ? sshd.killConnections() : 0),
  };
}
