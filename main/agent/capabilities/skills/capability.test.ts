import { localEnvironment } from '#infra/environment/local/local-environment';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AppEvent, DeftEvent } from '#protocol';
import { CommandError } from '#contract/errors';
import { guardPath } from '#infra/policies/path-guard';
import { createHarness } from '#test-support/harness';
import { reminders } from '#test-support/mock-steps';
import { defineTool } from '#contract/tool';
import { createSkillsCapability } from './capability';
import { put, skillMd } from '#test-support/skills';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness | null = null;
afterEach(async () => {
  await h?.dispose();
  h = null;
});

function nextEvent(hh: Harness, test: (e: DeftEvent) => boolean, timeoutMs = 5_000): Promise<DeftEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('event did not arrive')), timeoutMs);
    const off = hh.core.onEvent((e) => {
      if (!test(e)) return;
      clearTimeout(timer);
      off();
      resolve(e);
    });
  });
}
const skillsChanged = (e: DeftEvent): e is Extract<AppEvent, { type: 'skills.changed' }> => e.type === 'skills.changed';
/** The latest skill listing request `i` carries (a fact reminder). */
const listingOf = (hh: Harness, i: number) =>
  reminders(hh.server.requests[i]!.body.messages)
    .filter((r) => r.includes('# Skills'))
    .at(-1) ?? '';

describe('skills capability (integration)', () => {
  it('editing a SKILL.md on disk changes what the next request lists — even at the next step of the same turn', async () => {
    const editor = defineTool({
      name: 'EditSkill',
      policy: { approval: 'rules', mainAgentOnly: false },
      description: 'Test tool.',
      input: z.object({}),
      resolveExecution: () => ({
        description: 'edit',
        display: { kind: 'generic', summary: 'edit' },
        approvalRule: 'EditSkill',
        execute: async () => {
          const changed = nextEvent(h!, (e) => skillsChanged(e) && e.count === 2);
          await put(join(h!.workspace, '.deft/skills'), 'tidy/SKILL.md', skillMd('tidy', 'Tidy v2: now also sorts imports.'));
          await put(join(h!.workspace, '.deft/skills'), 'added/SKILL.md', skillMd('added', 'Freshly added.'));
          await changed;
          return { output: 'edited' };
        },
      }),
    });
    h = await createHarness({ capabilities: [createSkillsCapability({ builtinDir: null, userHome: '/nonexistent-user-home' })], tools: () => [editor] });
    const changed = nextEvent(h, (e) => skillsChanged(e) && e.count === 1);
    const file = await put(join(h.workspace, '.deft/skills'), 'tidy/SKILL.md', skillMd('tidy', 'Tidy v1.', 'when-to-use: After edits'));
    const event = await changed;
    expect(event).toMatchObject({ type: 'skills.changed', count: 1, skipped: 0 });

    h.server.enqueue({ chunks: [{ toolCall: { name: 'EditSkill', args: '{}' } }, { finish: 'tool_calls' }] });
    await h.run('tidy up');
    expect(listingOf(h, 0)).toContain(`### Workspace\n- tidy: Tidy v1.\n  When to use: After edits\n  Path: ${file}`);
    expect(listingOf(h, 0)).not.toContain('added');
    // The new listing comes once, after the step it changed in; the system prompt and the earlier listing stay as they were.
    const second = h.server.requests[1]!.body.messages;
    expect(second.at(-1)!.content).toBe(listingOf(h, 1));
    expect(listingOf(h, 1)).toContain('- tidy: Tidy v2: now also sorts imports.');
    expect(listingOf(h, 1)).toContain('- added: Freshly added.');
    expect(second.slice(0, h.server.requests[0]!.body.messages.length)).toEqual(h.server.requests[0]!.body.messages);
    expect(h.server.requests[0]!.body.tools!.map((t) => t.function.name)).toContain('Skill');
  });

  it("a repository's skill named like the user's own is marked for the model and in the gallery, with which one is used (issue 27, finding 11)", async () => {
    h = await createHarness({ capabilities: [createSkillsCapability({ builtinDir: null, watch: false, userHome: '/nonexistent-user-home' })] });
    const mine = await put(join(h.home, 'skills'), 'deploy/SKILL.md', skillMd('deploy', 'My own careful deploy.'));
    await put(join(h.workspace, '.deft/skills'), 'deploy/SKILL.md', skillMd('deploy', 'Deploy (as the repository sees it).'));
    const catalog = await h.core.handlers.listSkills({ rescan: true });
    expect(catalog.skills.find((s) => s.name === 'deploy')).toMatchObject({ source: 'workspace', overrides: [{ source: 'user', file: mine }] });
    h.server.enqueue({ chunks: [{ text: 'ok' }, { finish: 'stop' }] });
    await h.run('deploy it');
    const listing = listingOf(h, 0);
    expect(listing).toContain('- deploy: Deploy (as the repository sees it).');
    expect(listing).toContain(
      `Overrides the user's own skill "deploy" at ${mine} (this workspace skill is used instead; if the user means theirs, read it there).`,
    );
  });

  it('runSkill starts a turn: the transcript shows the command, the model reads the skill block, and the activation is an event', async () => {
    h = await createHarness({ capabilities: [createSkillsCapability({ builtinDir: null, watch: false, userHome: '/nonexistent-user-home' })] });
    const dir = join(h.workspace, '.deft/skills/greet');
    await put(dir, 'SKILL.md', skillMd('Greet', 'Greets.', 'arguments: [who]', 'Say hello to $who.'));
    await h.core.handlers.listSkills({ rescan: true });
    const { turnId } = await h.core.handlers.runSkill({ sessionId: h.session.id, name: 'skill:GREET', args: ' "Ada Lovelace" ' });
    await h.core.turnDone(h.session.id);
    const events = h.sessionEvents().filter((e) => ['turn.started', 'skill.activated', 'step.started'].includes(e.type));
    expect(events.map((e) => e.type)).toEqual(['turn.started', 'skill.activated', 'step.started']);
    expect(events[0]).toMatchObject({ turnId, text: '/skill:greet "Ada Lovelace"', origin: 'skill' });
    expect(events[1]).toMatchObject({
      turnId,
      name: 'greet',
      args: '"Ada Lovelace"',
      trigger: 'user',
      source: 'workspace',
      dir,
      content: 'Say hello to Ada Lovelace.',
    });
    expect(h.server.requests[0]!.body.messages.at(-1)).toEqual({
      role: 'user',
      content: `The user activated the skill "greet". Follow the loaded skill instructions.\n<skill-loaded name="greet" trigger="user" source="workspace" dir="${dir}">\nSay hello to Ada Lovelace.\n</skill-loaded>`,
    });

    h.server.enqueue({ chunks: [{ toolCall: { name: 'Skill', args: '{"skill":"greet"}' } }, { finish: 'tool_calls' }] });
    await h.core.handlers.runSkill({ sessionId: h.session.id, name: 'greet', args: 'Bob' });
    await h.core.turnDone(h.session.id);
    expect(h.server.requests.at(-1)!.body.messages.at(-1)!.content).toContain('Skill "greet" is already loaded in this turn');
  });

  it('runSkill explains failures: unknown (with close names), reference skills, busy sessions', async () => {
    h = await createHarness({ capabilities: [createSkillsCapability({ builtinDir: null, watch: false, userHome: '/nonexistent-user-home' })] });
    await put(join(h.workspace, '.deft/skills'), 'release/SKILL.md', skillMd('release'));
    await put(join(h.workspace, '.deft/skills'), 'glossary/SKILL.md', skillMd('glossary', 'Terms.', 'type: reference'));
    await h.core.handlers.listSkills({ rescan: true });
    const fail = (p: Promise<unknown>) =>
      p.then(
        () => null,
        (e: unknown) => e as CommandError,
      );
    expect(await fail(h.core.handlers.runSkill({ sessionId: h.session.id, name: 'relase' }))).toMatchObject({
      code: 'not_found',
      message: 'There is no skill named "relase". Did you mean: release?',
    });
    expect(await fail(h.core.handlers.runSkill({ sessionId: h.session.id, name: 'glossary' }))).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('reference skill'),
    });
    h.server.enqueue({ chunks: [{ text: 'slow' }, { finish: 'stop' }], delayMs: 200 });
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'busy' });
    expect(await fail(h.core.handlers.runSkill({ sessionId: h.session.id, name: 'release' }))).toMatchObject({ code: 'busy' });
    await h.core.turnDone(h.session.id);
    expect(await fail(h.core.handlers.runSkill({ sessionId: 'no-such-session', name: 'release' }))).toBeInstanceOf(CommandError);
  });

  it('lists skills with skipped files and roots; shows SKILL.md; opens folders where the host can', async () => {
    const opened: string[] = [];
    h = await createHarness({
      capabilities: [createSkillsCapability({ builtinDir: null, watch: false, userHome: '/nonexistent-user-home' })],
      openPath: async (p) => (opened.push(p), true),
    });
    const text = skillMd('doc', 'Documents things.', 'argument-hint: "<file>"\nlicense: MIT\nallowed-tools: Read Grep');
    await put(join(h.home, 'skills'), 'doc/SKILL.md', text);
    await put(join(h.home, 'skills'), 'broken/SKILL.md', '---\nname: broken\ntype: nope\ndescription: d\n---\n');
    const catalog = await h.core.handlers.listSkills({ rescan: true });
    expect(catalog.skills).toEqual([
      expect.objectContaining({
        name: 'doc',
        source: 'user',
        type: 'prompt',
        command: 'skill:doc',
        argumentHint: '<file>',
        license: 'MIT',
        allowedTools: ['Read', 'Grep'],
        modelInvocable: true,
      }),
    ]);
    expect(catalog.skipped).toEqual([
      { file: join(h.home, 'skills/broken/SKILL.md'), source: 'user', reason: expect.stringContaining('unsupported type "nope"') },
    ]);
    expect(catalog.roots.find((r) => r.source === 'user' && r.exists)).toMatchObject({ path: join(h.home, 'skills') });
    expect(await h.core.handlers.readSkillFile({ name: 'DOC' })).toEqual({ path: join(h.home, 'skills/doc/SKILL.md'), text });
    expect(await h.core.handlers.openSkillFolder({ name: 'doc' })).toEqual({ path: join(h.home, 'skills/doc'), opened: true });
    expect(opened).toEqual([join(h.home, 'skills/doc')]);
  });

  it('makes skill folders readable by the file tools (path guard extra roots)', async () => {
    let extraRoots: () => readonly string[] = () => [];
    const probe = defineTool({
      name: 'Probe',
      policy: { approval: 'rules', mainAgentOnly: false },
      description: 'Test tool.',
      input: z.object({}),
      resolveExecution: (_args, env) => {
        extraRoots = env.extraRoots;
        return { output: 'ok' };
      },
    });
    h = await createHarness({
      capabilities: [createSkillsCapability({ builtinDir: null, watch: false, userHome: '/nonexistent-user-home' })],
      tools: () => [probe],
    });
    const script = await put(join(h.home, 'skills'), 'ship/scripts/ship.sh', 'echo ship');
    await put(join(h.home, 'skills'), 'ship/SKILL.md', skillMd('ship'));
    await h.core.handlers.listSkills({ rescan: true });
    h.server.enqueue({ chunks: [{ toolCall: { name: 'Probe', args: '{}' } }, { finish: 'tool_calls' }] });
    await h.run('probe');
    const guarded = await guardPath(script, 'read', { environment: localEnvironment(), workspace: h.workspace, extraRoots });
    expect(guarded.inside).toBe(true);
    const outside = await guardPath(join(h.home, 'settings.json'), 'read', { environment: localEnvironment(), workspace: h.workspace, extraRoots });
    expect(outside.inside).toBe(false);
  });

  it('announces the built-in skills shipped in skills/ and lists the model-invocable ones', async () => {
    h = await createHarness({ capabilities: [createSkillsCapability({ watch: false, userHome: '/nonexistent-user-home' })] });
    const catalog = await h.core.handlers.listSkills({});
    expect(catalog.skills.map((s) => [s.name, s.source, s.command])).toEqual([
      ['commit', 'builtin', 'commit'],
      ['review', 'builtin', 'review'],
      ['skill-creator', 'builtin', 'skill-creator'],
    ]);
    await h.run('hi');
    const system = listingOf(h, 0);
    expect(system).toContain('### Built-in\n- review: Review the uncommitted changes');
    expect(system).toContain('- skill-creator: ');
    expect(system).not.toContain('- commit: ');
    const events = h.sessionEvents();
    expect(events.some((e) => e.type === 'skill.activated')).toBe(false);
  });
});
