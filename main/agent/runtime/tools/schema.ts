import { z } from 'zod';

/**
 * The JSON Schema the model sees: zod's *input* view (a field with a default stays optional) with
 * `additionalProperties: false` on every object, so a misspelt argument is rejected.
 */
export function toModelSchema(schema: z.ZodType): Record<string, unknown> {
  // A tool's schema is built once and each step's registry asks for it again: converted once (and frozen, as it is shared).
  let json = converted.get(schema);
  if (!json) {
    json = z.toJSONSchema(schema, { io: 'input', target: 'draft-7', unrepresentable: 'any' });
    closeObjects(json);
    deepFreeze(json);
    converted.set(schema, json);
  }
  return json;
}

const converted = new WeakMap<z.ZodType, Record<string, unknown>>();

function deepFreeze(node: unknown): void {
  if (!node || typeof node !== 'object' || Object.isFrozen(node)) return;
  Object.freeze(node);
  for (const value of Object.values(node)) deepFreeze(value);
}

function closeObjects(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(closeObjects);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  if (record.type === 'object' && record.additionalProperties === undefined) record.additionalProperties = false;
  for (const value of Object.values(record)) closeObjects(value);
}

/** Drop keys some providers reject (`$schema`) from what is sent over the wire. */
export function forWire(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _drop, ...rest } = schema;
  return rest;
}

/**
 * A JSON Schema from elsewhere (an MCP server), as the model is sent it: an object schema always (some
 * providers reject a tool without `type: "object"` and `properties`); the server's own rules otherwise kept.
 */
export function fromJsonSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const copy = structuredClone(schema);
  if (copy.type === undefined) copy.type = 'object';
  if (copy.type === 'object' && (copy.properties === undefined || typeof copy.properties !== 'object')) copy.properties = {};
  return copy;
}
