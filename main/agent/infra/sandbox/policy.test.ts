import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { TrustStore } from '../settings/trust';
import { domainAllows, domainEntryFor, parseDomainPattern } from './domains';
import { scrubbedEnvironment } from './environment';
import { filesystemPolicy } from './filesystem-policy';
import { seatbeltProfile } from './macos';
import { SandboxSettingsStore } from './settings';
import { readWorkspaceInputs } from './workspace-inputs';
import { workspacePlace } from '#infra/environment/workspace-place';

// The sandbox's pure parts, on every OS: settings (an untrusted workspace only narrows), allowed
// domains, the environment, the file system policy and the Seatbelt profile built from it.
let root: string;
let workspace: string;
let home: string;
beforeEach(async () => {
  root = await tempDir('deft-sandbox-policy-');
  workspace = join(root, 'ws');
  home = join(root, 'home', '.deft');
  await mkdir(join(workspace, '.deft'), { recursive: true });
  for (const dir of ['hooks', 'objects', 'refs']) await mkdir(join(workspace, '.git', dir), { recursive: true });
  await writeFile(join(workspace, '.git', 'config'), '[core]\n');
  await writeFile(join(workspace, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  await mkdir(home, { recursive: true });
});

const section = (sandbox: unknown) => JSON.stringify({ sandbox });

describe('sandbox settings', () => {
  it("an untrusted workspace's own files may only narrow the sandbox", async () => {
    await writeFile(join(home, 'settings.json'), section({ network: { allowedDomains: ['registry.npmjs.org'] }, filesystem: { allowWrite: [root] } }));
    await writeFile(
      join(workspace, '.deft', 'settings.json'),
      section({
        enabled: false,
        autoAllow: true,
        filesystem: { allowWrite: ['/'], denyRead: ['secret-notes'], denyWrite: ['locked'] },
        network: { allowedDomains: ['evil.example'], allowAddressClasses: ['loopback', 'everything'] },
      }),
    );
    const settings = await new SandboxSettingsStore(home, workspace).load();
    expect(settings.enabled).toBe(true);
    expect(settings.allowWrite).toEqual([root]);
    expect(settings.allowedDomains).toEqual(['registry.npmjs.org']);
    expect(settings.denyRead).toEqual([join(workspace, 'secret-notes')]);
    expect(settings.denyWrite).toEqual([join(workspace, 'locked')]);
    expect(settings.ignored.join('\n')).toMatch(/sandbox\.enabled false[\s\S]*autoAllow true[\s\S]*allowWrite \/[\s\S]*evil\.example/);
    expect(settings.allowAddressClasses).toEqual([]);
    expect(settings.ignored).toContainEqual(expect.stringContaining('sandbox.network.allowAddressClasses loopback'));
    expect(settings.problems).toContainEqual(expect.stringContaining('"everything" in sandbox.network.allowAddressClasses'));

    await new TrustStore(home, workspacePlace(workspace)).trust();
    const trusted = await new SandboxSettingsStore(home, workspace).load();
    expect(trusted).toMatchObject({ enabled: false, allowedDomains: ['registry.npmjs.org', 'evil.example'], allowAddressClasses: ['loopback'] });
    expect(trusted.allowWrite).toContain('/');
  });

  it('reports entries it cannot use, with their file, and keeps the rest', async () => {
    await writeFile(join(home, 'settings.json'), section({ enabled: 'yes', network: { allowedDomains: ['ok.example', 'http://bad/', ''] } }));
    const settings = await new SandboxSettingsStore(home, workspace).load();
    expect(settings.enabled).toBe(true);
    expect(settings.allowedDomains).toEqual([]);
    expect(settings.problems.join('\n')).toContain(join(home, 'settings.json'));
    await writeFile(join(home, 'settings.json'), section({ network: { allowedDomains: ['ok.example', 'http://bad/'] } }));
    const second = await new SandboxSettingsStore(home, workspace).load();
    expect(second.allowedDomains).toEqual(['ok.example']);
    expect(second.problems.join('\n')).toContain('"http://bad/"');
  });
});

describe('allowed domains', () => {
  it('match a host exactly, subdomains with *., and a port when one is given', () => {
    expect(domainAllows('github.com', 'GitHub.com.', 443)).toBe(true);
    expect(domainAllows('github.com', 'api.github.com', 443)).toBe(false);
    expect(domainAllows('*.github.com', 'api.github.com', 443)).toBe(true);
    expect(domainAllows('*.github.com', 'github.com', 443)).toBe(false);
    expect(domainAllows('*.github.com', 'evilgithub.com', 443)).toBe(false);
    expect(domainAllows('127.0.0.1:8080', '127.0.0.1', 8080)).toBe(true);
    expect(domainAllows('127.0.0.1:8080', '127.0.0.1', 8081)).toBe(false);
    expect(domainAllows('[::1]', '[::1]', 80)).toBe(true);
    expect(parseDomainPattern('https://x.com').ok).toBe(false);
    expect(parseDomainPattern('::1').ok).toBe(false);
  });
  it('"always allow" stores a name whole, an address only with its port', () => {
    expect(domainEntryFor('Registry.npmjs.org', 443)).toBe('registry.npmjs.org');
    expect(domainEntryFor('127.0.0.1', 5173)).toBe('127.0.0.1:5173');
    expect(domainEntryFor('::1', 80)).toBe('[::1]:80');
  });
});

describe('the environment commands get', () => {
  it("drops Deft's variables, provider keys, git's overrides and any variable holding a secret Deft keeps", () => {
    const env = scrubbedEnvironment({
      base: {
        PATH: '/usr/bin',
        DEFT_API_KEY: 'a',
        deft_web_token: 'b',
        ANTHROPIC_API_KEY: 'c',
        GIT_CONFIG_PARAMETERS: "'core.fsmonitor=evil'",
        GIT_DIR: '/x',
        MY_COPY: 'prefix-sk-secret-value',
        FORCE_COLOR: '1',
      },
      secrets: ['sk-secret-value', 'short'],
      tmpDir: '/tmp/session',
      gitCeiling: '/work',
    });
    expect(env).toMatchObject({
      PATH: '/usr/bin',
      TMPDIR: '/tmp/session',
      GIT_CEILING_DIRECTORIES: '/work',
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'safe.bareRepository',
      GIT_CONFIG_VALUE_0: 'explicit',
    });
    for (const gone of ['DEFT_API_KEY', 'deft_web_token', 'ANTHROPIC_API_KEY', 'GIT_CONFIG_PARAMETERS', 'GIT_DIR', 'MY_COPY', 'FORCE_COLOR'])
      expect(env, gone).not.toHaveProperty(gone);
  });
});

describe('the file system policy', () => {
  it('writes in the workspace and temp folder, never in .git/hooks, .git/config, .deft/ or Deft home — not even inside allowWrite', async () => {
    const tmpDir = join(root, 'tmp');
    await mkdir(tmpDir);
    const policy = filesystemPolicy({
      workspace,
      deftHome: home,
      userHome: join(root, 'home'),
      tmpDir,
      allowWrite: [join(root, 'home')],
      denyWrite: [],
      denyRead: [],
    });
    expect(policy.writeRoots).toEqual([workspace, tmpDir, join(root, 'home')]);
    expect(policy.denyWrite.map((d) => d.path)).toEqual(
      expect.arrayContaining([join(workspace, '.git', 'hooks'), join(workspace, '.git', 'config'), join(workspace, '.deft'), home]),
    );
    expect(policy.pins).toContain(join(workspace, '.git'));

    const profile = seatbeltProfile({ policy, proxyPort: 3128 });
    const allow = profile.indexOf('(allow file-write*');
    const deny = profile.indexOf('(deny file-write*\n');
    expect(allow).toBeGreaterThan(0);
    // Later rules win in Seatbelt: the denies must come after the allows.
    expect(deny).toBeGreaterThan(allow);
    expect(profile.slice(deny)).toContain(`(subpath "${join(workspace, '.git', 'hooks')}")`);
    expect(profile).toContain('(allow network-outbound (remote ip "localhost:3128"))');
    expect(profile.match(/allow network-outbound/g)).toHaveLength(1);
  });
});

describe("the policy's inputs", () => {
  it('takes a linked worktree from the opening only; an empty .git is protected whole, a git dir is pinned', async () => {
    const tmpDir = join(root, 'tmp');
    await mkdir(tmpDir);
    const plain = join(root, 'plain');
    await mkdir(join(plain, '.git'), { recursive: true });
    const empty = filesystemPolicy({ workspace: plain, deftHome: home, userHome: join(root, 'home'), tmpDir, allowWrite: [], denyWrite: [], denyRead: [] });
    expect(empty.denyWrite).toContainEqual({ path: join(plain, '.git'), dir: true });
    expect(empty.pins).not.toContain(join(plain, '.git'));
    // A .git file naming a folder outside, written after the opening: never a write root.
    const opened = readWorkspaceInputs(plain);
    await rm(join(plain, '.git'), { recursive: true });
    const elsewhere = join(root, 'elsewhere');
    for (const dir of ['objects', 'refs']) await mkdir(join(elsewhere, dir), { recursive: true });
    await writeFile(join(elsewhere, 'HEAD'), 'ref: refs/heads/main\n');
    await writeFile(join(plain, '.git'), `gitdir: ${elsewhere}\n`);
    const later = filesystemPolicy({
      workspace: plain,
      deftHome: home,
      userHome: join(root, 'home'),
      tmpDir,
      allowWrite: [],
      denyWrite: [],
      denyRead: [],
      inputs: { opened, current: readWorkspaceInputs(plain) },
    });
    expect(later.writeRoots).toEqual([plain, tmpDir]);
    expect(later.denyWrite).toContainEqual({ path: join(plain, '.git'), dir: false });
  });
});
