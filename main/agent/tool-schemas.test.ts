import { expect, it } from 'vitest';
import { z } from 'zod';
import { defaultCapabilities } from './capabilities';
import { selectToolsTool } from './runtime/tools/select-tools/select-tools';
import { LazyToolInput, duplicateToolInputIds, toolInput, toolInputs } from './contract/tool-input';
import { toModelSchema } from './runtime/tools/schema';
import { ToolRegistry } from './runtime/tools/registry';
import type { Tool } from './contract/tool';

// Imported for what importing them does: every built-in tool's module makes its lazy input (toolInputs).
void defaultCapabilities;
void selectToolsTool;

/**
 * contract/tool-schemas.json is what the model is sent for each built-in tool, read instead of built at start
 * (issue 36). It must be exactly what the tools' zod schemas convert to: after changing a tool's input, run
 * `npx vitest run main/agent/tool-schemas.test.ts -u` and commit the file (schemas.test.ts shows the model's view).
 */
it('tool-schemas.json is what the built-in tools’ zod inputs convert to', async () => {
  expect(duplicateToolInputIds).toEqual([]);
  // The input of every tool a session can be offered, Bash's two forms included.
  expect(toolInputs.size).toBeGreaterThanOrEqual(30);
  const converted = Object.fromEntries([...toolInputs].sort(([a], [b]) => a.localeCompare(b)).map(([id, input]) => [id, toModelSchema(input.schema())]));
  await expect(`${JSON.stringify(converted, null, 2)}\n`).toMatchFileSnapshot('./contract/tool-schemas.json');
  for (const [id, input] of toolInputs) expect(input.modelSchema, id).toEqual(converted[id]);
});

function echoTool(input: Tool['input']): Tool {
  return { name: 'Echo', description: 'Echoes.', input, policy: { approval: 'rules', mainAgentOnly: false }, resolveExecution: () => ({ output: '' }) };
}

it('a lazy input is built only when a call is validated, and the model is sent the precomputed schema', () => {
  let builds = 0;
  const known = toolInputs.get('Grep')!;
  const lazy = new LazyToolInput('Grep', () => {
    builds++;
    return known.schema();
  });
  const registry = new ToolRegistry([echoTool(lazy)]);
  expect(builds).toBe(0);
  expect(registry.get('Echo')!.schema).toBe(known.modelSchema);
  expect(Object.isFrozen(registry.get('Echo')!.schema)).toBe(true);
  expect(lazy.schema()).toBe(known.schema());
  lazy.schema();
  expect(builds).toBe(1);
});

it('an input not in tool-schemas.json is converted from zod, as before', () => {
  const input = toolInput('A tool made by this test', () => z.object({ n: z.number().int() }));
  expect(input.modelSchema).toBeUndefined();
  const registry = new ToolRegistry([echoTool(input)]);
  expect(registry.get('Echo')!.wire.parameters).toEqual({
    type: 'object',
    properties: { n: { type: 'integer', minimum: expect.any(Number), maximum: expect.any(Number) } },
    required: ['n'],
    additionalProperties: false,
  });
  toolInputs.delete('A tool made by this test');
});
