import { describe, expect, it } from 'vitest';
import { defaultFeatures } from '../features/index';
import type { CoreContext, SessionHandle } from '../features/types';
import { ToolRegistry } from './registry';
import type { ToolEnv } from './contract';

/**
 * What the model is told about every built-in tool: names, descriptions and JSON Schemas. A change
 * here changes the model's behaviour, so it must be deliberate: update the snapshot on purpose
 * (`npx vitest run main/agent/tools/schemas.test.ts -u`) and review the diff.
 */
const core: CoreContext = {
  workspace: '/workspace',
  home: '/home/user/.deft',
  host: 'cli',
  now: () => 0,
  emitApp: () => {},
  session: async () => {
    throw new Error('not in this test');
  },
};
const session: SessionHandle = {
  id: 'schema-session',
  dir: '/home/user/.deft/sessions/s',
  running: false,
  emit: () => {},
  getState: () => undefined,
  setState: () => {},
  startTurn: async () => null,
  inject: () => {},
};
const env: ToolEnv = { workspace: core.workspace, home: core.home, sessionId: session.id, sessionDir: session.dir, capabilities: { imageInput: true }, extraRoots: () => [] };

describe('tool schemas', () => {
  const tools = defaultFeatures.map((create) => create(core)).flatMap((feature) => feature.tools?.(session, env) ?? []);
  const registry = new ToolRegistry(tools);

  it('have unique names and closed objects', () => {
    expect(registry.names().length).toBe(tools.length);
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
