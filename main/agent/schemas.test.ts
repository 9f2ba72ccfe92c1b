import { afterAll, describe, expect, it } from 'vitest';
import { defaultCapabilities } from './capabilities';
import type { CoreContext, SessionHandle } from './contract/feature';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FileSecretStore } from './infra/settings/secrets';
import { tempDir } from '../../test-support/harness';
import { inertSessionHandle, noWorkspaceSandbox } from '../../test-support/session-handle';
import { ToolRegistry } from './runtime/tools/registry';
import { selectToolsTool } from './runtime/tools/select-tools/select-tools';
import type { ToolEnv } from './contract/tool';

/**
 * What the model is told about every built-in tool: names, descriptions and JSON Schemas. A change
 * here changes the model's behaviour, so it must be deliberate: update the snapshot on purpose
 * (`npx vitest run main/agent/tools/schemas.test.ts -u`) and review the diff.
 */
const scratch = await tempDir('deft-schemas-');
// A search provider is configured, so WebSearch is offered too.
await writeFile(join(scratch, 'settings.json'), JSON.stringify({ web: { search: { provider: 'searxng', baseUrl: 'http://127.0.0.1:1' } } }));
const core: CoreContext = {
  workspace: scratch,
  home: scratch,
  // A host with a window, so tools that need someone to answer (AskUserQuestion) are offered too.
  host: 'web',
  now: () => 0,
  emitApp: () => {},
  secrets: FileSecretStore.inHome(scratch),
  session: async () => {
    throw new Error('not in this test');
  },
  sandboxStatus: async () => ({ available: false, enabled: false }),
  workspaceSandbox: noWorkspaceSandbox(scratch),
};
const session: SessionHandle = inertSessionHandle('schema-session', scratch);
const env: ToolEnv = { workspace: core.workspace, home: core.home, sessionId: session.id, sessionDir: session.dir, capabilities: { imageInput: true }, extraRoots: () => [] };

describe('tool schemas', async () => {
  const features = defaultCapabilities.map((create) => create(core));
  for (const feature of features) await feature.onSessionLoaded?.(session);
  const tools = features.flatMap((feature) => feature.tools?.(session, env) ?? []);
  const registry = new ToolRegistry(tools);
  // select_tools is offered by the runtime whenever some tools are deferred.
  registry.add(selectToolsTool(registry));
  afterAll(() => Promise.all(features.map(async (f) => f.close?.())));

  it('have unique names and closed objects', () => {
    expect(registry.names().length).toBe(tools.length + 1);
    for (const schema of registry.schemas()) {
      expect(schema.parameters, schema.name).toMatchObject({ type: 'object', additionalProperties: false });
      expect(schema.description.length, schema.name).toBeGreaterThan(80);
    }
  });

  for (const schema of registry.schemas()) {
    it(`${schema.name} is what the model expects`, () => {
      expect(schema).toMatchSnapshot();
    });
  }
});
