import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WorkspacePlace } from '#contract/environment';
import { tempDir } from '#test-support/harness';
import { type TestSshd, startSshd } from '#test-support/sshd';
import { type RemoteFolder, openRemoteFolder } from '#infra/environment/ssh/open-remote';
import { workspacePlace } from '#infra/environment/workspace-place';
import { SandboxSettingsStore } from '#infra/sandbox/settings';
import { TrustStore } from '#infra/settings/trust';
import { WebSettings } from '../web/settings';
import { RuleStore } from './rule-files';

// Issue 29: trust and the workspace's own rule files for a folder on another machine. The "remote" is a real sshd on
// loopback that sees another folder mounted at the workspace's path (a mount namespace of its own), so this machine
// has a DIFFERENT folder at the same absolute path — the one an attacker (or an old checkout) could have trusted here.

let sshd: TestSshd;
let there: string; // what the remote machine has at `path`
let path: string; // the workspace's absolute path: the remote's folder there, and a local folder of its own here
let home: string;
let userHome: string;
const open: RemoteFolder[] = [];

beforeAll(async () => {
  there = await tempDir('deft-remote-rules-there-');
  path = await tempDir('deft-remote-rules-path-');
  const started = await startSshd({ binds: [{ from: there, to: path }] });
  if (!started) throw new Error('OpenSSH (openssh-server) is not installed: apt-get install openssh-server openssh-client');
  sshd = started;
}, 30_000);
afterAll(() => sshd?.stop());

beforeEach(async () => {
  home = await tempDir('deft-remote-rules-home-');
  userHome = await tempDir('deft-remote-rules-user-');
  await mkdir(join(userHome, '.ssh'), { mode: 0o700 });
  await writeFile(join(userHome, '.ssh', 'id_ed25519'), sshd.privateKey, { mode: 0o600 });
  await writeFile(join(userHome, '.ssh', 'known_hosts'), await readFile(sshd.knownHosts));
  // Fresh folders each time, on both sides (the bind follows the folder, not its content).
  for (const dir of [there, path]) {
    await rm(join(dir, '.deft'), { recursive: true, force: true });
    await mkdir(join(dir, '.deft'));
  }
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((f) => f.environment.close()));
});

/** The remote folder at `path`, reached by the host name `host` (127.0.0.1 and localhost are two hosts to trust). */
async function remote(host = '127.0.0.1'): Promise<WorkspacePlace> {
  const folder = await openRemoteFolder(`${sshd.username}@${host}:${sshd.port}:${path}`, { userHome, localUser: sshd.username });
  open.push(folder);
  return workspacePlace(folder.workspace, folder.environment, folder.id);
}

const json = (value: unknown) => JSON.stringify(value, null, 2);
const trustFile = async () =>
  JSON.parse(await readFile(join(home, 'trust.json'), 'utf8')) as { folders: Record<string, { trusted?: boolean; approvedRules?: string[] }> };

describe('the fixture', () => {
  it('the remote sees its own folder at the path, not this machine’s', { timeout: 30_000 }, async () => {
    await writeFile(join(there, 'who.txt'), 'remote\n');
    await writeFile(join(path, 'who.txt'), 'local\n');
    const place = await remote();
    expect(place.path).toBe(path);
    expect(await place.environment.readText(join(path, 'who.txt'))).toBe('remote\n');
    expect(await readFile(join(path, 'who.txt'), 'utf8')).toBe('local\n');
  });
});

describe('trust and rule files of a remote folder', () => {
  it('(a) a trusted local folder at the same path, allowing Bash(*), gives the remote session neither trust nor the rule', { timeout: 30_000 }, async () => {
    await writeFile(join(path, '.deft', 'settings.json'), json({ permissions: { allow: ['Bash(*)'], defaultMode: 'yolo' } }));
    await new TrustStore(home, workspacePlace(path)).trust();
    // The local folder itself: trusted, its rule and mode in force (the baseline the attack relies on).
    const local = (await new RuleStore(home, workspacePlace(path)).load()).loaded;
    expect(local.trust.trusted).toBe(true);
    expect(local.rules.map((r) => `${r.decision} ${r.pattern}`)).toContain('allow Bash(*)');

    const place = await remote();
    expect(place.id).toBe(`ssh://${sshd.username}@127.0.0.1:${sshd.port}${path}`);
    const { loaded } = await new RuleStore(home, place).load();
    expect(loaded.trust.trusted).toBe(false);
    expect([...loaded.rules, ...loaded.ignoredRules].map((r) => r.pattern)).not.toContain('Bash(*)');
    expect(loaded.defaultMode).toBeUndefined();
    expect(loaded.files.project).toBe(join(path, '.deft', 'settings.json'));
    // Nor does any other reader of the workspace's settings take the local file.
    await writeFile(
      join(path, '.deft', 'settings.local.json'),
      json({ sandbox: { filesystem: { denyRead: ['local-secret'] } }, web: { allowPrivateHosts: ['intranet.local'] } }),
    );
    const sandbox = await new SandboxSettingsStore(home, place).load();
    expect(sandbox.denyRead).toEqual([]);
    expect(await new WebSettings(home, place, { kind: 'file', get: async () => undefined, set: async () => {} }, {}).allowedPrivateHosts()).toEqual([]);
  });

  it('(b) the remote folder’s own files apply: deny always, allow and defaultMode once it is trusted', { timeout: 30_000 }, async () => {
    await writeFile(
      join(there, '.deft', 'settings.json'),
      json({ permissions: { deny: ['Bash(rm *)'], allow: ['Bash(echo *)'], defaultMode: 'yolo' }, sandbox: { filesystem: { denyRead: ['secrets'] } } }),
    );
    const place = await remote();
    const store = new RuleStore(home, place);
    let { loaded } = await store.load();
    expect(loaded.trust.trusted).toBe(false);
    expect(loaded.rules.map((r) => `${r.decision} ${r.pattern}`)).toEqual(['deny Bash(rm *)']);
    expect(loaded.ignoredRules.map((r) => r.pattern)).toEqual(['Bash(echo *)']);
    expect(loaded.trust.ignored).toEqual([
      `allow Bash(echo *) (${join(path, '.deft', 'settings.json')})`,
      `defaultMode yolo (${join(path, '.deft', 'settings.json')})`,
    ]);
    expect(loaded.defaultMode).toBeUndefined();
    expect((await new SandboxSettingsStore(home, place).load()).denyRead).toEqual([join(path, 'secrets')]);

    await store.trust.trust();
    ({ loaded } = await store.load());
    expect(loaded.trust.trusted).toBe(true);
    expect(loaded.rules.map((r) => `${r.decision} ${r.pattern}`)).toEqual(['deny Bash(rm *)', 'allow Bash(echo *)']);
    expect(loaded.defaultMode).toBe('yolo');
    // Trusted under the remote's key only: the local folder at the path is not.
    expect(Object.keys((await trustFile()).folders)).toEqual([place.id]);
    expect((await new RuleStore(home, workspacePlace(path)).load()).loaded.trust.trusted).toBe(false);
    // A change to the remote file is seen (the cache follows the remote file's size and time).
    await writeFile(join(there, '.deft', 'settings.json'), json({ permissions: { deny: ['Bash(curl *)'] } }));
    ({ loaded } = await store.load());
    expect(loaded.rules.map((r) => `${r.decision} ${r.pattern}`)).toEqual(['deny Bash(curl *)']);
  });

  it('(c) "Always allow" writes the remote folder’s settings.local.json and leaves the local path untouched', { timeout: 30_000 }, async () => {
    await writeFile(join(there, '.deft', 'settings.local.json'), json({ theme: 'kept', permissions: { allow: ['Bash(ls)'] } }));
    const place = await remote();
    const store = new RuleStore(home, place);
    await store.addLocalAllowRule('Bash(npm test)');
    await store.addLocalAllowedDomain('registry.npmjs.org');
    expect(JSON.parse(await readFile(join(there, '.deft', 'settings.local.json'), 'utf8'))).toEqual({
      theme: 'kept',
      permissions: { allow: ['Bash(ls)', 'Bash(npm test)'] },
      sandbox: { network: { allowedDomains: ['registry.npmjs.org'] } },
    });
    expect(existsSync(join(path, '.deft', 'settings.local.json'))).toBe(false);
    // The approval is the remote folder's, not the local path's.
    const folders = (await trustFile()).folders;
    expect(Object.keys(folders)).toEqual([place.id]);
    expect(folders[place.id]?.approvedRules).toEqual(['Bash(npm test)', 'Network(registry.npmjs.org)']);
    const { loaded } = await store.load();
    expect(loaded.rules.map((r) => `${r.decision} ${r.pattern}`)).toEqual(['allow Bash(npm test)']);
    expect(loaded.ignoredRules.map((r) => r.pattern)).toEqual(['Bash(ls)']);
  });

  it('(c) a remote .deft that is a symbolic link is refused, on the remote, and nothing is written', { timeout: 30_000 }, async () => {
    const elsewhere = await tempDir('deft-remote-rules-elsewhere-');
    await rm(join(there, '.deft'), { recursive: true });
    await symlink(elsewhere, join(there, '.deft'));
    const store = new RuleStore(home, await remote());
    await expect(store.addLocalAllowRule('Bash(npm test)')).rejects.toThrow(/is a symbolic link; Deft does not write settings through it/);
    expect(existsSync(join(elsewhere, 'settings.local.json'))).toBe(false);
    expect(existsSync(join(path, '.deft', 'settings.local.json'))).toBe(false);
  });

  it('(d) trusting the folder on one host trusts neither the same path on another host nor the local path', { timeout: 30_000 }, async () => {
    await writeFile(join(there, '.deft', 'settings.json'), json({ permissions: { allow: ['Bash(echo *)'] } }));
    const a = await remote('127.0.0.1');
    const b = await remote('localhost');
    expect(b.id).toBe(`ssh://${sshd.username}@localhost:${sshd.port}${path}`);
    await new RuleStore(home, a).trust.trust();
    expect((await new RuleStore(home, a).load()).loaded.rules.map((r) => r.pattern)).toEqual(['Bash(echo *)']);
    const other = (await new RuleStore(home, b).load()).loaded;
    expect(other.trust.trusted).toBe(false);
    expect(other.rules).toEqual([]);
    expect((await new TrustStore(home, workspacePlace(path)).get()).trusted).toBe(false);
  });

  it('a remote workspace without its ssh:// key is refused, never keyed by its bare path', { timeout: 30_000 }, async () => {
    const place = await remote();
    expect(() => workspacePlace(path, place.environment)).toThrow(/has no ssh:\/\/ key/);
    expect(() => workspacePlace(path, place.environment, path)).toThrow(/has no ssh:\/\/ key/);
    expect(() => workspacePlace(path, undefined, place.id)).toThrow(/known by its path/);
  });
});
