import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { TrustStore } from '#infra/settings/trust';
import { workspacePlace } from '#infra/environment/workspace-place';
import { createHarness } from '#test-support/harness';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { standInTools } from '#test-support/stand-in-tools';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

const userSettings = async () => JSON.parse(await readFile(join(h.home, 'settings.json'), 'utf8')) as { hooks?: Record<string, unknown> };

it('adds a hook to the user file, tests it with a sample event through the runner, and a disabled hook does not run', async () => {
  h = await createHarness({ permissionMode: 'yolo', tools: () => standInTools() });
  const command = 'input=$(cat); echo "$input" > "$DEFT_PROJECT_DIR/seen.json"; echo "checked" >&2; exit 2';
  const overview = await h.core.handlers.addHook({ source: 'user', event: 'PreToolUse', matcher: 'Bash', command });
  expect(overview.hooks).toEqual([expect.objectContaining({ event: 'PreToolUse', matcher: 'Bash', command, source: 'user', group: 0, index: 0 })]);
  expect((await userSettings()).hooks).toEqual({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }] });

  const ref = { source: 'user' as const, event: 'PreToolUse' as const, group: 0, index: 0, command };
  const result = await h.core.handlers.testHook({ ...ref, sessionId: h.session.id });
  expect(result).toMatchObject({ exitCode: 2, stderr: 'checked\n', timedOut: false, decision: 'blocked', message: 'checked' });
  const seen = JSON.parse(await readFile(join(h.workspace, 'seen.json'), 'utf8')) as Record<string, unknown>;
  expect(seen).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'Bash', session_id: h.session.id });
  expect(JSON.parse(result.input)).toEqual(seen);

  // Disabled: listed as such, and a Bash call runs without it.
  const after = await h.core.handlers.setHookDisabled({ ...ref, disabled: true });
  expect(after.hooks[0]).toMatchObject({ disabled: true });
  expect((await userSettings()).hooks).toEqual({ PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command, disabled: true }] }] });
  await writeFile(join(h.workspace, 'seen.json'), '');
  h.server.enqueue(toolStep(callChunk('Bash', { command: 'ls' }, 'c1')), textReply('ok'));
  await h.run('list');
  expect(await readFile(join(h.workspace, 'seen.json'), 'utf8')).toBe('');
  expect(h.sessionEvents('hook.ran')).toEqual([]);

  // A stale reference (the file changed) is refused rather than editing another entry.
  await expect(h.core.handlers.setHookDisabled({ ...ref, command: 'other', disabled: false })).rejects.toMatchObject({ code: 'not_found' });
  expect((await h.core.handlers.setHookDisabled({ ...ref, disabled: false })).hooks[0]?.disabled).toBeUndefined();
});

it("a workspace's hooks are added, turned on and tested only once the folder is trusted", async () => {
  h = await createHarness({ tools: () => standInTools() });
  const command = 'touch "$DEFT_PROJECT_DIR/ran"';
  await expect(h.core.handlers.addHook({ source: 'local', event: 'Stop', matcher: '', command })).rejects.toMatchObject({ code: 'invalid_request' });
  await mkdir(join(h.workspace, '.deft'));
  await writeFile(join(h.workspace, '.deft/settings.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command }] }] } }));
  const ref = { source: 'project' as const, event: 'Stop' as const, group: 0, index: 0, command };
  await expect(h.core.handlers.testHook({ ...ref, sessionId: h.session.id })).rejects.toMatchObject({ code: 'invalid_request' });
  expect(existsSync(join(h.workspace, 'ran'))).toBe(false);
  // Turning one off only narrows: allowed before trust.
  await h.core.handlers.setHookDisabled({ ...ref, disabled: true });
  await expect(h.core.handlers.setHookDisabled({ ...ref, disabled: false })).rejects.toMatchObject({ code: 'invalid_request' });

  await new TrustStore(h.home, workspacePlace(h.workspace)).trust();
  await h.core.handlers.setHookDisabled({ ...ref, disabled: false });
  expect(await h.core.handlers.testHook({ ...ref, sessionId: h.session.id })).toMatchObject({ exitCode: 0, decision: 'none' });
  expect(existsSync(join(h.workspace, 'ran'))).toBe(true);
  await expect(h.core.handlers.addHook({ source: 'local', event: 'PreToolUse', matcher: '(', command })).rejects.toMatchObject({ code: 'invalid_request' });
});
