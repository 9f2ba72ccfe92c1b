import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { TrustStore } from '#infra/settings/trust';
import { workspacePlace } from '#infra/environment/workspace-place';
import { createHarness } from '#test-support/harness';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

const missing = { kind: null, reason: 'bubblewrap (bwrap) is not installed', install: 'sudo apt-get install bubblewrap socat' } as const;

it("shows why the sandbox is off, and saves the user file's section keeping the rest of the file", async () => {
  h = await createHarness({ sandboxSupport: missing });
  const view = await h.core.handlers.getSandboxSettings({});
  expect(view.status).toMatchObject({ available: false, enabled: false, reason: missing.reason, install: missing.install });
  expect(view.sources.user).toEqual({ allowWrite: [], denyRead: [], allowedDomains: [] });
  const saved = await h.core.handlers.setSandboxSettings({
    source: 'user',
    autoAllow: false,
    allowWrite: ['~/.cache/pip', '~/.cache/pip'],
    denyRead: ['~/notes'],
    allowedDomains: ['registry.npmjs.org', '*.github.com'],
  });
  expect(saved.sources.user).toEqual({
    autoAllow: false,
    allowWrite: ['~/.cache/pip'],
    denyRead: ['~/notes'],
    allowedDomains: ['registry.npmjs.org', '*.github.com'],
  });
  expect(saved.effective).toMatchObject({ autoAllow: false, allowedDomains: ['registry.npmjs.org', '*.github.com'] });
  const file = JSON.parse(await readFile(join(h.home, 'settings.json'), 'utf8')) as Record<string, unknown>;
  expect(file.permissions).toBeDefined();
  expect(file.sandbox).toEqual({
    autoAllow: false,
    filesystem: { allowWrite: ['~/.cache/pip'], denyRead: ['~/notes'] },
    network: { allowedDomains: ['registry.npmjs.org', '*.github.com'] },
  });
  const off = await h.core.handlers.setSandboxSettings({ source: 'user', enabled: false });
  expect(off.effective.enabled).toBe(false);
});

it('refuses entries that are not sane, and a workspace file until the folder is trusted', async () => {
  h = await createHarness({ sandboxSupport: missing });
  for (const allowWrite of [['/'], ['~'], ['.'], ['~bob/x']])
    await expect(h.core.handlers.setSandboxSettings({ source: 'user', allowWrite })).rejects.toMatchObject({ code: 'invalid_request' });
  await expect(h.core.handlers.setSandboxSettings({ source: 'user', allowedDomains: ['http://x y'] })).rejects.toMatchObject({ code: 'invalid_request' });
  await expect(h.core.handlers.setSandboxSettings({ source: 'local', allowedDomains: ['example.com'] })).rejects.toMatchObject({ code: 'invalid_request' });
  await mkdir(join(h.workspace, '.deft'));
  await writeFile(join(h.workspace, '.deft/settings.json'), JSON.stringify({ sandbox: { network: { allowedDomains: ['evil.example'] } } }));
  const untrusted = await h.core.handlers.getSandboxSettings({});
  expect(untrusted).toMatchObject({ trusted: false, sources: { project: { allowedDomains: ['evil.example'] } }, effective: { allowedDomains: [] } });
  expect(untrusted.ignored.join('\n')).toContain('evil.example');

  await new TrustStore(h.home, workspacePlace(h.workspace)).trust();
  const trusted = await h.core.handlers.setSandboxSettings({ source: 'local', allowedDomains: ['example.com'] });
  expect(trusted.effective.allowedDomains.sort()).toEqual(['evil.example', 'example.com']);
  expect(JSON.parse(await readFile(join(h.workspace, '.deft/settings.local.json'), 'utf8'))).toEqual({
    sandbox: { network: { allowedDomains: ['example.com'] } },
  });
});
