import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MockModelServer, textChunks } from '#test-support/mock-model-server';
import { createHarness, fastRetry, tempDir } from '#test-support/harness';
import { TrustStore } from '#infra/settings/trust';
import { type CliIo, runCli } from '../../../host/cli/cli';
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

const REVIEW = `---
description: Review two files
argument-hint: <first> <second>
allowed-tools: Read, Grep
model: some-model
---
Review $1, then $2 (all: $ARGUMENTS).
Status: !\`git status --short\`
Style guide: @docs/style.md
Never: @~/.ssh/id_rsa
`;

/** The last prompt the model got (a reminder may follow it: trusting the folder adds the LSP tool, announced). */
const lastUserText = (server: MockModelServer) =>
  String(
    server.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'user' && !String(m.content).startsWith('<system-reminder>'))
      .at(-1)!.content,
  );

describe("Claude Code's .claude/commands and .claude/skills", () => {
  it('become slash commands with frontmatter, $1…$n and $ARGUMENTS, @file references; shell lines are refused until the folder is trusted', async () => {
    h = await createHarness();
    await put(h.workspace, '.claude/commands/review.md', REVIEW);
    await put(h.workspace, '.claude/commands/frontend/component.md', 'Make a component named $1.');
    await put(h.workspace, '.claude/skills/tidy/SKILL.md', '---\nname: tidy\ndescription: Tidy up.\n---\nTidy.');
    await put(h.workspace, 'docs/style.md', 'Two spaces.');
    const { skills } = await h.core.handlers.listSkills({ rescan: true });
    const byName = new Map(skills.map((s) => [s.name, s]));
    expect(byName.get('review')).toMatchObject({ command: 'review', description: 'Review two files', argumentHint: '<first> <second>', source: 'workspace' });
    expect(byName.get('frontend:component')).toMatchObject({ command: 'frontend:component' });
    expect(byName.get('tidy')).toMatchObject({ command: 'skill:tidy', source: 'workspace' });

    h.server.enqueue({ chunks: [...textChunks('ok'), { finish: 'stop' }] });
    await h.core.handlers.runSkill({ sessionId: h.session.id, name: 'review', args: 'a.ts "b c.ts"' });
    await h.core.turnDone(h.session.id);
    const untrusted = lastUserText(h.server);
    expect(untrusted).toContain('Review a.ts, then b c.ts (all: a.ts &quot;b c.ts&quot;)'.replace(/&quot;/g, '"'));
    expect(untrusted).toContain('`git status --short` (not run: this folder is not trusted)');
    expect(untrusted).not.toContain('run each of these commands with the Bash tool');
    expect(untrusted).toContain('<file path="docs/style.md">\nTwo spaces.\n</file>');
    expect(untrusted).not.toContain('id_rsa"');

    await new TrustStore(h.home, workspacePlace(h.workspace)).trust();
    h.server.enqueue({ chunks: [...textChunks('ok'), { finish: 'stop' }] });
    await h.core.handlers.runSkill({ sessionId: h.session.id, name: 'review', args: 'x y' });
    await h.core.turnDone(h.session.id);
    const trusted = lastUserText(h.server);
    expect(trusted).toContain('run each of these commands with the Bash tool and use its output');
    expect(trusted).toContain('- `git status --short`');
    expect(trusted).toContain('Status: (the output of `git status --short`)');
  });

  it('deft run "/name args" expands a command exactly as the window does', async () => {
    const server = new MockModelServer();
    await server.start();
    const workspace = await tempDir('deft-cli-ws-');
    const home = await tempDir('deft-cli-home-');
    try {
      await put(workspace, '.claude/commands/greet.md', '---\ndescription: Greet\n---\nSay hello to $1 and $2.');
      server.enqueue({ chunks: [...textChunks('Hello.'), { finish: 'stop' }] });
      let stdout = '';
      const io: CliIo = { stdout: (t) => (stdout += t), stderr: () => undefined, env: { DEFT_HOME: home }, cwd: workspace, coreOptions: { retry: fastRetry } };
      expect(await runCli(['run', '--base-url', server.baseUrl, '--model', 'mock-model', '/greet Ann Bo'], io)).toBe(0);
      expect(stdout).toBe('Hello.\n');
      const text = lastUserText(server);
      expect(text).toContain('The user activated the skill "greet"');
      expect(text).toContain('Say hello to Ann and Bo.');
      // Not a command: sent as it is.
      server.enqueue({ chunks: [...textChunks('Fine.'), { finish: 'stop' }] });
      expect(await runCli(['run', '--base-url', server.baseUrl, '--model', 'mock-model', '/nothing-here x'], io)).toBe(0);
      expect(lastUserText(server)).toBe('/nothing-here x');
    } finally {
      await server.close();
    }
  });
});
