import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, tempDir } from '#test-support/harness';
import { TrustStore } from '#infra/settings/trust';
import { workspacePlace } from '#infra/environment/workspace-place';

let h: Awaited<ReturnType<typeof createHarness>> | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

async function put(root: string, path: string, text: string) {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), text);
}

describe('the Plugins page commands', () => {
  it('add a folder marketplace, see what a plugin brings, install, disable, remove; suggestions only once the folder is trusted', async () => {
    h = await createHarness();
    const market = await tempDir('deft-market-');
    await put(market, '.claude-plugin/marketplace.json', JSON.stringify({ name: 'acme', plugins: [{ name: 'tools', source: './tools' }] }));
    await put(market, 'tools/.claude-plugin/plugin.json', JSON.stringify({ name: 'tools', version: '2.0.0' }));
    await put(market, 'tools/skills/greet/SKILL.md', '---\nname: greet\ndescription: Greets.\n---\nHello.');
    await put(market, 'tools/hooks/hooks.json', JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'true' }] }] } }));
    await put(h.workspace, '.deft/settings.json', JSON.stringify({ enabledPlugins: { 'tools@acme': true } }));

    const { overview } = await h.core.handlers.addPluginMarketplace({ source: market });
    expect(overview.suggested).toEqual([]);
    expect(overview.marketplaces[0]!.plugins[0]).toMatchObject({
      name: 'tools',
      installed: false,
      contents: { version: '2.0.0', skills: ['greet'], hooks: [{ event: 'Stop', command: 'true' }], mcpServers: [] },
    });
    await new TrustStore(h.home, workspacePlace(h.workspace)).trust();
    expect((await h.core.handlers.listPlugins({})).suggested).toEqual(['tools@acme']);

    const installed = await h.core.handlers.installPlugin({ ref: 'tools@acme' });
    expect(installed.overview.installed).toMatchObject([{ name: 'tools', marketplace: 'acme', enabled: true }]);
    expect(installed.overview.suggested).toEqual([]);
    const { skills } = await h.core.handlers.listSkills({ rescan: true });
    expect(skills.find((s) => s.name === 'greet')).toMatchObject({ source: 'plugin' });

    const off = await h.core.handlers.setPluginEnabled({ ref: 'tools', enabled: false });
    expect(off.overview.installed[0]!.enabled).toBe(false);
    expect((await h.core.handlers.listSkills({ rescan: true })).skills.some((s) => s.name === 'greet')).toBe(false);
    expect((await h.core.handlers.removePlugin({ ref: 'tools@acme' })).overview.installed).toEqual([]);
    await expect(h.core.handlers.installPlugin({ ref: 'nope@acme' })).rejects.toThrow('marketplace "acme" has no plugin "nope"');
  });
});
