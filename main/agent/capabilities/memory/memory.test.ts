import { mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, tempDir, testCapabilities } from '#test-support/harness';
import { callChunk, reminders, textReply, toolStep } from '#test-support/mock-steps';
import { prefixBreak } from '#test-support/request-prefix';
import { commandSchemas } from '#protocol';
import { localEnvironment } from '#infra/environment/local/local-environment';
import { memoryCapability, createMemoryCapability } from './capability';

let h: Awaited<ReturnType<typeof createHarness>>;
let userHome: string | undefined;
afterEach(async () => {
  await h?.dispose();
  if (userHome) await rm(userHome, { recursive: true, force: true });
  userHome = undefined;
});

const systemOf = (i: number) => String(h.server.requests[i]!.body.messages[0]!.content);

describe('instruction files in a session', () => {
  it('puts the project file in the system prompt and announces a subfolder file once, when the agent first reads under it, keeping the prefix', async () => {
    h = await createHarness();
    await writeFile(join(h.workspace, 'AGENTS.md'), 'Root rules.');
    await mkdir(join(h.workspace, 'api', 'v1'), { recursive: true });
    await writeFile(join(h.workspace, 'api', 'CLAUDE.md'), 'API rules: every handler validates its input.');
    await writeFile(join(h.workspace, 'api', 'v1', 'users.ts'), 'export {};\n');
    await writeFile(join(h.workspace, 'api', 'v1', 'posts.ts'), 'export {};\n');
    await writeFile(join(h.workspace, 'top.ts'), 'export {};\n');
    h.server.enqueue(toolStep(callChunk('Read', { path: 'top.ts' })));
    h.server.enqueue(toolStep(callChunk('Read', { path: 'api/v1/users.ts' })));
    h.server.enqueue(toolStep(callChunk('Read', { path: 'api/v1/posts.ts' })));
    h.server.enqueue(textReply('done', 5_000));
    await h.run('Look around.');
    const [, second, third, fourth] = h.server.requests;
    expect(systemOf(0)).toContain('<instructions file="AGENTS.md" from="the project">\nRoot rules.\n</instructions>');
    expect(systemOf(0)).not.toContain('API rules');
    // Reading a file at the top announces nothing; the first read under api/ announces api/CLAUDE.md, once.
    expect(reminders(second!.body.messages).join('\n')).not.toContain('API rules');
    const announced = reminders(third!.body.messages).filter((r) => r.includes('API rules'));
    expect(announced).toHaveLength(1);
    expect(announced[0]).toContain('Instructions for work in api');
    expect(announced[0]).toContain('<instructions file="api/CLAUDE.md" from="a subfolder">');
    expect(reminders(fourth!.body.messages).filter((r) => r.includes('API rules'))).toHaveLength(1);
    // The provider's cached prefix holds: every request starts with the one before it.
    for (let i = 1; i < h.server.requests.length; i++) expect(prefixBreak(h.server.requests[i - 1]!, h.server.requests[i]!)).toBeNull();
    // The Memory view lists both, and the context meter counts them apart.
    const overview = await h.core.handlers.listMemory({ sessionId: h.session.id });
    expect(overview.files.map((f) => [f.display, f.scope])).toEqual([
      ['AGENTS.md', 'project'],
      ['api/CLAUDE.md', 'nested'],
    ]);
    const measured = h.sessionEvents('context.measured').at(-1) as { breakdown: { instructions?: number } } | undefined;
    expect(measured?.breakdown.instructions).toBeGreaterThan(0);
  });

  it('on a slow disk (a remote folder), the request after the first read under a subfolder waits for its file: never one request late', async () => {
    // The look for api/'s instruction files takes 1.5 s; building the next request takes far less.
    const local = localEnvironment();
    const slow = new Proxy(local, {
      get(target, key) {
        const value = Reflect.get(target, key, target) as unknown;
        if (key === 'lstat')
          return async (path: string) => {
            if (/\/api\/(AGENTS|CLAUDE)\.md$/.test(path)) await new Promise((r) => setTimeout(r, 1_500));
            return target.lstat(path);
          };
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    h = await createHarness({ environment: slow });
    await mkdir(join(h.workspace, 'api'));
    await writeFile(join(h.workspace, 'api', 'CLAUDE.md'), 'API rules: every handler validates its input.');
    await writeFile(join(h.workspace, 'api', 'users.ts'), 'export {};\n');
    h.server.enqueue(toolStep(callChunk('Read', { path: 'api/users.ts' })), textReply('done'));
    await h.run('Read it.');
    expect(reminders(h.server.requests[1]!.body.messages).join('\n')).toContain('API rules');
  });

  it('re-announces a subfolder file after it changes, and never one that links outside the workspace', async () => {
    h = await createHarness();
    const outside = await tempDir('deft-outside-');
    await writeFile(join(outside, 'secret-notes.md'), 'private notes');
    await mkdir(join(h.workspace, 'evil'));
    await mkdir(join(h.workspace, 'lib'));
    await symlink(join(outside, 'secret-notes.md'), join(h.workspace, 'evil', 'AGENTS.md'));
    await writeFile(join(h.workspace, 'evil', 'x.ts'), '1');
    await writeFile(join(h.workspace, 'lib', 'AGENTS.md'), 'Lib v1.');
    await writeFile(join(h.workspace, 'lib', 'y.ts'), '2');
    h.server.enqueue(toolStep(callChunk('Read', { path: 'evil/x.ts' }), callChunk('Read', { path: 'lib/y.ts' }), callChunk('Read', { path: 'lib/AGENTS.md' })));
    h.server.enqueue(toolStep(callChunk('Edit', { path: 'lib/AGENTS.md', old_string: 'Lib v1.', new_string: 'Lib v2.' })));
    h.server.enqueue(textReply('ok'));
    await h.run('Go.');
    const all = h.server.requests.map((r) => JSON.stringify(r.body));
    expect(all.join('')).not.toContain('private notes');
    expect(reminders(h.server.requests[1]!.body.messages).join('')).toContain('Lib v1.');
    expect(reminders(h.server.requests[2]!.body.messages).join('')).toContain('Lib v2.');
    const overview = await h.core.handlers.listMemory({ sessionId: h.session.id });
    expect(overview.problems).toEqual([{ display: 'evil/AGENTS.md', message: 'not read: it lies outside the folders instruction files may come from' }]);
    await rm(outside, { recursive: true, force: true });
  });

  it('adds a # line to the project or the user file, and keeps the settings', async () => {
    userHome = await tempDir('deft-user-');
    h = await createHarness({ capabilities: [...testCapabilities.filter((f) => f !== memoryCapability), createMemoryCapability({ userHome })] });
    expect((await h.core.handlers.listMemory({})).targets).toEqual([
      { target: 'project', display: 'AGENTS.md', exists: false },
      { target: 'user', display: join(h.home, 'AGENTS.md'), exists: false },
    ]);
    await writeFile(join(h.workspace, 'CLAUDE.md'), 'Rules.\r\nMore.');
    expect(await h.core.handlers.addMemoryLine({ target: 'project', text: 'Use pnpm, not npm.' })).toEqual({ display: 'CLAUDE.md' });
    expect(await readFile(join(h.workspace, 'CLAUDE.md'), 'utf8')).toBe('Rules.\r\nMore.\r\n- Use pnpm, not npm.\r\n');
    await h.core.handlers.addMemoryLine({ target: 'user', text: 'Answer briefly.' });
    expect(await readFile(join(h.home, 'AGENTS.md'), 'utf8')).toBe('- Answer briefly.\n');
    expect(commandSchemas().addMemoryLine.input.safeParse({ target: 'user', text: 'two\nlines' }).success).toBe(false);
    // A CLAUDE.md that links out of the workspace is not written through.
    await rm(join(h.workspace, 'CLAUDE.md'));
    const outside = await tempDir('deft-outside-');
    await writeFile(join(outside, 'target.md'), 'x');
    await symlink(join(outside, 'target.md'), join(h.workspace, 'AGENTS.md'));
    await expect(h.core.handlers.addMemoryLine({ target: 'project', text: 'no' })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(await readFile(join(outside, 'target.md'), 'utf8')).toBe('x');
    await rm(outside, { recursive: true, force: true });
    await mkdir(join(userHome, '.claude'));
    await writeFile(join(userHome, '.claude', 'CLAUDE.md'), 'Claude user rules.');
    expect((await h.core.handlers.listMemory({})).files.map((f) => f.display)).toEqual([join(h.home, 'AGENTS.md')]);
    const on = await h.core.handlers.setInstructionSettings({ claudeUser: true });
    expect(on.settings).toEqual({ claudeUser: true, codexUser: false });
    expect(on.files.map((f) => f.display)).toContain('~/.claude/CLAUDE.md');
  });
});
