import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness } from '#test-support/harness';
import { callChunk, textReply, toolMessages, toolStep } from '#test-support/mock-steps';
import { TrustStore } from '#infra/settings/trust';
import { workspacePlace } from '#infra/environment/workspace-place';

// The permission engine against the shipped Bash tool (not a stand-in).
type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('permissions with the real Bash tool', () => {
  it('an allow rule for one command does not let a compound command through (headless ask)', async () => {
    h = await createHarness({ permissionMode: 'ask' });
    await mkdir(join(h.workspace, '.deft'));
    await new TrustStore(h.home, workspacePlace(h.workspace)).trust();
    await writeFile(join(h.workspace, '.deft/settings.json'), JSON.stringify({ permissions: { allow: ['Bash(echo ok)'] } }));
    h.server.enqueue(toolStep(callChunk('Bash', { command: 'echo ok' }), callChunk('Bash', { command: 'echo ok; touch pwned' })), textReply('done'));
    await h.run('go');
    const [first, second] = toolMessages(h);
    expect(first).toContain('ok');
    expect(first).not.toContain('ERROR');
    expect(second).toContain('Bash needs approval');
    expect(await exists(join(h.workspace, 'pwned'))).toBe(false);
  });

  it('refuses rm -rf of the workspace even in yolo mode', async () => {
    h = await createHarness({ permissionMode: 'yolo' });
    await writeFile(join(h.workspace, 'keep.txt'), 'x');
    h.server.enqueue(toolStep(callChunk('Bash', { command: `rm -rf ${h.workspace}` })), textReply('done'));
    await h.run('clean up');
    expect(toolMessages(h)[0]).toContain('would recursively delete');
    expect(await exists(join(h.workspace, 'keep.txt'))).toBe(true);
  });
});
