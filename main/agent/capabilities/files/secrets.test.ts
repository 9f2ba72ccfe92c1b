import { link, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileToolKit } from '#test-support/file-tools';
import { createHarness } from '#test-support/harness';
import { callTool } from '#test-support/shell-harness';

type Kit = Awaited<ReturnType<typeof fileToolKit>>;

async function put(kit: Kit, path: string, content: string): Promise<string> {
  const full = join(kit.workspace, path);
  await mkdir(dirname(full), { recursive: true });
  await writeFile(full, content);
  return full;
}

describe('finding 5: secrets are not readable without approval', () => {
  // Credential stores by name and place, as they sit in a home folder (here, under the workspace so Read takes relative paths).
  const stores = [
    'home/.ssh/id_dsa',
    'home/.ssh/my_server_key',
    'home/.git-credentials',
    'home/.netrc',
    'home/.docker/config.json',
    'home/.kube/config',
    'home/.config/gcloud/application_default_credentials.json',
    'home/.config/gh/hosts.yml',
    'home/.aws/config',
    '.envrc',
  ];
  for (const path of stores) {
    it(`Read refuses ${path}`, async () => {
      const kit = await fileToolKit();
      await put(kit, path, 'secret-value');
      const { result, text } = await kit.call('Read', { path });
      expect(result.isError, text).toBe(true);
      expect(text).toMatch(/sensitive/);
      expect(text).not.toContain('secret-value');
    });
  }

  it("Read refuses Deft's own secrets.json", async () => {
    const kit = await fileToolKit();
    await writeFile(join(kit.outside, 'secrets.json'), '{"apiKey:x":"sk-secret"}');
    const { result, text } = await kit.call('Read', { path: join(kit.outside, 'secrets.json') });
    expect(result.isError).toBe(true);
    expect(text).not.toContain('sk-secret');
  });

  it('refuses a .pem or .key holding a private key, an .npmrc with a token, and a hard link to .env — by content', async () => {
    const kit = await fileToolKit();
    await put(kit, 'certs/server.pem', '-----BEGIN RSA PRIVATE KEY-----\nMIIxyzzy\n-----END RSA PRIVATE KEY-----\n');
    await put(kit, 'deploy.key', '-----BEGIN OPENSSH PRIVATE KEY-----\nxyzzy\n');
    await put(kit, '.npmrc', '//registry.npmjs.org/:_authToken=npm_xyzzy\n');
    const env = await put(kit, '.env', 'TOKEN=xyzzy\n');
    await link(env, join(kit.workspace, 'notes.txt'));
    for (const path of ['certs/server.pem', 'deploy.key', '.npmrc', 'notes.txt']) {
      const { result, text } = await kit.call('Read', { path });
      expect(result.isError, path).toBe(true);
      expect(text).not.toMatch(/xyzzy/);
    }
    // A certificate (public) and an .npmrc without a token stay readable.
    await put(kit, 'certs/ca.pem', '-----BEGIN CERTIFICATE-----\nMIIpublic\n');
    await put(kit, 'sub/.npmrc', 'registry=https://registry.npmjs.org/\n');
    expect((await kit.call('Read', { path: 'certs/ca.pem' })).result.isError).toBeFalsy();
    expect((await kit.call('Read', { path: 'sub/.npmrc' })).result.isError).toBeFalsy();
  });

  it('Grep never prints a secret file found by content, nor a hard link to .env', async () => {
    const kit = await fileToolKit();
    await put(kit, 'deploy.key', '-----BEGIN OPENSSH PRIVATE KEY-----\nneedle-secret\n');
    const env = await put(kit, '.env', 'needle-secret\n');
    await link(env, join(kit.workspace, 'notes.txt'));
    await put(kit, 'ok.txt', 'needle-public\n');
    const { text } = await kit.call('Grep', { pattern: 'needle', output_mode: 'content' });
    expect(text).toContain('needle-public');
    expect(text).not.toContain('needle-secret');
  });

  it('Grep refuses /proc/self/environ (it would leak the environment a character at a time)', async () => {
    const kit = await fileToolKit();
    const { result, text } = await kit.call('Grep', { pattern: '^D', path: '/proc/self/environ' });
    expect(result.isError, text).toBe(true);
    expect(text).toMatch(/sensitive/);
  });
});

describe('finding 6: a deny rule on reading hides files from Grep and Glob too', () => {
  let h: Awaited<ReturnType<typeof createHarness>>;
  afterEach(async () => h?.dispose());

  it('with Read(private/**) denied, Grep (every mode) and Glob neither list nor print private/notes.txt', async () => {
    h = await createHarness();
    const settings = JSON.parse(await readFile(join(h.home, 'settings.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(h.home, 'settings.json'), JSON.stringify({ ...settings, permissions: { defaultMode: 'yolo', deny: ['Read(private/**)'] } }));
    await mkdir(join(h.workspace, 'private'));
    await writeFile(join(h.workspace, 'private', 'notes.txt'), 'needle in private\n');
    await writeFile(join(h.workspace, 'public.txt'), 'needle in public\n');
    for (const output_mode of ['content', 'files_with_matches', 'count_matches']) {
      const { content } = await callTool(h, 'Grep', { pattern: 'needle', output_mode });
      expect(content, output_mode).toContain('public.txt');
      expect(content, output_mode).not.toContain('notes.txt');
      expect(content, output_mode).not.toContain('needle in private');
    }
    const glob = await callTool(h, 'Glob', { pattern: '**/*.txt' });
    expect(glob.content).toContain('public.txt');
    expect(glob.content).not.toContain('notes.txt');
    const rooted = await callTool(h, 'Grep', { pattern: 'needle', path: 'private' });
    expect(rooted.content).toMatch(/hidden by the deny rule "Read\(private\/\*\*\)"/);
    const globRooted = await callTool(h, 'Glob', { pattern: '*', path: 'private' });
    expect(globRooted.content).toMatch(/hidden by the deny rule/);
  });
});
