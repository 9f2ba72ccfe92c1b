import { localEnvironment } from './infra/environment/local/local-environment';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultCapabilities } from './capabilities';
import { shellCapability } from './capabilities/shell/capability';
import type { CoreContext, Capability, CapabilityFactory } from './contract/capability';
import type { ToolEnv } from './contract/tool';
import { FileSecretStore } from './infra/settings/secrets';
import { DeftCore } from './runtime/core';
import { ToolRegistry } from './runtime/tools/registry';
import { createHarness, tempDir, testCapabilities } from '#test-support/harness';
import { inertSessionHandle, noWorkspaceSandbox } from '#test-support/session-handle';
import { cliHost, webHost } from '../host/hosts';
import { workspacePlace } from '#infra/environment/workspace-place';

const scratch = await tempDir('deft-tool-set-');
const open: Capability[] = [];
afterAll(async () => {
  await Promise.all(open.map(async (f) => f.close?.()));
  await rm(scratch, { recursive: true, force: true });
});

/** The tools a session is offered with these capabilities, on this host, for a model that does (not) read images. */
async function offered(options: { host: CoreContext['host']; imageInput: boolean; capabilities?: readonly CapabilityFactory[] }) {
  const core: CoreContext = {
    environment: localEnvironment(),
    workspace: scratch,
    place: workspacePlace(scratch),
    home: scratch,
    host: options.host,
    now: () => 0,
    emitApp: () => {},
    secrets: FileSecretStore.inHome(scratch),
    session: () => Promise.reject(new Error('not here')),
    sandboxStatus: async () => ({ available: false, enabled: false }),
    workspaceSandbox: noWorkspaceSandbox(scratch),
  };
  const session = inertSessionHandle(`s-${open.length}`, scratch);
  const env: ToolEnv = {
    environment: localEnvironment(),
    workspace: scratch,
    home: scratch,
    sessionId: session.id,
    sessionDir: scratch,
    capabilities: { imageInput: options.imageInput },
    extraRoots: () => [],
  };
  const capabilities = (options.capabilities ?? defaultCapabilities).map((create) => create(core));
  open.push(...capabilities);
  for (const capability of capabilities) await capability.onSessionLoaded?.(session);
  return new ToolRegistry(capabilities.flatMap((f) => f.tools?.(session, env) ?? [])).schemas();
}

const names = (tools: Awaited<ReturnType<typeof offered>>) => tools.map((t) => t.name);

describe('what decides the tool set', () => {
  it('ReadMediaFile only for a model that reads images, and Read says where images go either way', async () => {
    const seeing = await offered({ host: webHost, imageInput: true });
    const blind = await offered({ host: webHost, imageInput: false });
    expect(names(seeing)).toContain('ReadMediaFile');
    expect(names(blind)).not.toContain('ReadMediaFile');
    expect(seeing.find((t) => t.name === 'Read')!.description).toContain('Do not use Read for images (use ReadMediaFile)');
    expect(blind.find((t) => t.name === 'Read')!.description).toContain('Do not use Read for images (the configured model cannot see them)');
    expect(blind.find((t) => t.name === 'Read')!.description).not.toContain('ReadMediaFile');
  });

  it('tools whose host is missing are not offered: no questions or scheduled prompts headless', async () => {
    const windowed = names(await offered({ host: webHost, imageInput: true }));
    const headless = names(await offered({ host: cliHost(), imageInput: true }));
    expect(windowed).toEqual(expect.arrayContaining(['AskUserQuestion', 'CronCreate', 'CronList', 'CronDelete']));
    expect(headless.filter((n) => !windowed.includes(n))).toEqual([]);
    expect(windowed.filter((n) => !headless.includes(n)).sort()).toEqual(['AskUserQuestion', 'CronCreate', 'CronDelete', 'CronList']);
  });

  it('without background tasks, Bash says so in its description and schema, and the task tools are gone', async () => {
    const tools = await offered({ host: webHost, imageInput: true, capabilities: [shellCapability({ backgroundTasks: false })] });
    expect(names(tools)).toEqual(['Bash', 'CronCreate', 'CronList', 'CronDelete']);
    const bash = tools[0]!;
    expect(bash.description).toContain('Background tasks are not available in this session');
    expect(bash.description).toContain('When time runs out the command is stopped');
    expect(bash.description).not.toMatch(/run_in_background|TaskOutput|TaskStop|\{\{/);
    expect(Object.keys((bash.parameters as { properties: object }).properties).sort()).toEqual(['command', 'cwd', 'description', 'timeout']);
    const withTasks = (await offered({ host: webHost, imageInput: true, capabilities: [shellCapability()] }))[0]!;
    expect(withTasks.description).toContain('set `run_in_background: true`');
    expect(withTasks.description).not.toContain('{{');
  });

  it('without background tasks, a foreground command that reaches its timeout is stopped, not moved to the background', async () => {
    const h = await createHarness({ capabilities: [shellCapability({ backgroundTasks: false, killGraceMs: 200 })] });
    try {
      h.server.enqueue(
        { chunks: [{ toolCall: { id: 'b', name: 'Bash', args: JSON.stringify({ command: 'sleep 30', timeout: 1 }) } }, { finish: 'tool_calls' }] },
        { chunks: [{ toolCall: { id: 'c', name: 'Bash', args: JSON.stringify({ command: 'true', run_in_background: true }) } }, { finish: 'tool_calls' }] },
        { chunks: [{ text: 'ok' }, { finish: 'stop' }] },
      );
      await h.run('go');
      const results = h.server.requests
        .at(-1)!
        .body.messages.filter((m) => m.role === 'tool')
        .map((m) => String(m.content));
      expect(results[0]).toMatch(/Command killed by timeout/);
      expect(results[0]).not.toContain('task_id');
      expect(results[1]).toBe("ERROR: Invalid arguments for Bash: must NOT have additional property 'run_in_background'.");
      expect((await h.core.handlers.listTasks({ sessionId: h.session.id })).tasks).toEqual([]);
    } finally {
      await h.dispose();
    }
  });

  it("the server's model list decides whether the model reads images, where it says so; otherwise the setting does", async () => {
    const h = await createHarness();
    const toolNames = () => h.server.requests.at(-1)!.body.tools!.map((t) => t.function.name);
    const use = (model: string, imageInput: boolean) =>
      h.core.handlers.setSettings({ provider: { kind: 'openai', baseUrl: h.baseUrl, model, apiKey: 'k', imageInput } });
    try {
      // The setting says no, the list says yes (OpenRouter's architecture.input_modalities).
      h.server.modelInfo['mock-model'] = { architecture: { input_modalities: ['text', 'image'] } };
      await use('mock-model', false);
      await h.run('one');
      expect(toolNames()).toContain('ReadMediaFile');
      // The setting says yes, the list says no (Moonshot's supports_image_in).
      h.server.modelInfo['mock-model-large'] = { supports_image_in: false };
      await use('mock-model-large', true);
      await h.run('two');
      expect(toolNames()).not.toContain('ReadMediaFile');
      // A list that says nothing: the setting decides.
      h.server.models.push('plain');
      await use('plain', true);
      await h.run('three');
      expect(toolNames()).toContain('ReadMediaFile');
    } finally {
      await h.dispose();
    }
  });

  it('asks for the model list once a day, not once a process: a second core on the same home reads the cached answer', async () => {
    const h = await createHarness();
    try {
      h.server.modelInfo['mock-model'] = { architecture: { input_modalities: ['text', 'image'] } };
      await h.run('one');
      expect(h.server.modelListRequests).toBe(1);
      // As the next `deft run` would: a new core, same home and settings.
      const again = new DeftCore({ home: h.home, workspace: h.workspace, host: cliHost(), secrets: h.secrets, capabilities: testCapabilities });
      try {
        const { session } = await again.handlers.createSession({});
        await again.handlers.sendPrompt({ sessionId: session.id, text: 'two' });
        await again.turnDone(session.id);
      } finally {
        await again.close();
      }
      expect(h.server.modelListRequests).toBe(1);
      expect(h.server.requests.at(-1)!.body.tools!.map((t) => t.function.name)).toContain('ReadMediaFile');
      // The cache holds neither the endpoint nor the key.
      const cached = await readFile(join(h.home, 'cache', 'model-info.json'), 'utf8');
      expect(cached).not.toContain('127.0.0.1');
      expect(cached).not.toContain('test-key');
    } finally {
      await h.dispose();
    }
  });
});
