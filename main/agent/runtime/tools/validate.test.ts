import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { forWire, toModelSchema } from './schema';
import { compiledSchemaCount, schemasHeldByEngines, validateArgs } from './validate';

const schema = toModelSchema(
  z.object({ path: z.string(), limit: z.number().int().default(10), nested: z.object({ flag: z.boolean() }).optional(), mode: z.enum(['a', 'b']).optional() }),
);

describe('toModelSchema', () => {
  it('keeps defaulted fields optional and closes every object', () => {
    expect(schema.required).toEqual(['path']);
    expect(schema.additionalProperties).toBe(false);
    expect((schema.properties as Record<string, { additionalProperties?: boolean }>).nested!.additionalProperties).toBe(false);
  });
  it('drops $schema for the wire only', () => {
    expect(schema.$schema).toBeDefined();
    expect(forWire(schema).$schema).toBeUndefined();
  });
});

describe('validateArgs', () => {
  it('accepts valid arguments', () => {
    expect(validateArgs(schema, { path: 'a' })).toEqual([]);
  });
  it('explains a missing property, a misspelt one, a wrong type and a bad enum value, one line each', () => {
    const problems = validateArgs(schema, { pathh: 'a', limit: 'x', mode: 'c', nested: { flag: 1 } });
    expect(problems).toContain("must have required property 'path'");
    expect(problems).toContain("must NOT have additional property 'pathh'");
    expect(problems).toContain('/limit must be integer');
    expect(problems).toContain('/mode must be one of "a", "b"');
    expect(problems).toContain('/nested/flag must be boolean');
  });
  it('validates schemas of other drafts (MCP tools)', () => {
    const draft2020 = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { xs: { type: 'array', prefixItems: [{ type: 'number' }] } },
      required: ['xs'],
    };
    expect(validateArgs(draft2020, { xs: [1] })).toEqual([]);
    expect(validateArgs(draft2020, { xs: ['no'] })).toEqual(['/xs/0 must be number']);
    const draft2019 = {
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      type: 'object',
      properties: { a: { type: 'string' } },
      unevaluatedProperties: false,
    };
    expect(validateArgs(draft2019, { a: 'x', b: 1 })).toHaveLength(1);
  });
  it('compiles a schema built afresh every step only once, and leaves nothing of it in the engine (a long session stays flat)', () => {
    const build = () => toModelSchema(z.object({ path: z.string().describe('The file, built afresh each step.'), limit: z.number().int().optional() }));
    const held = schemasHeldByEngines();
    // (Right arguments to a plain schema pass without Ajv, plain-schema.ts: a wrong call compiles it.)
    validateArgs(build(), { limit: 1 });
    const compiled = compiledSchemaCount();
    for (let step = 0; step < 50; step++) {
      expect(validateArgs(build(), { path: 'a' })).toEqual([]);
      expect(validateArgs(build(), { limit: 1 })).toEqual(["must have required property 'path'"]);
    }
    expect(compiledSchemaCount()).toBe(compiled);
    expect(schemasHeldByEngines()).toBe(held);
  });
  it('validates a new schema with the same $id as an earlier one (an MCP server restarted with changed tools)', () => {
    const first = { $id: 'urn:tool:echo', type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };
    const second = { $id: 'urn:tool:echo', type: 'object', properties: { text: { type: 'number' } }, required: ['text'] };
    expect(validateArgs(first, { text: 'x' })).toEqual([]);
    expect(validateArgs(second, { text: 1 })).toEqual([]);
    expect(validateArgs(second, { text: 'x' })).toEqual(['/text must be number']);
  });
  it('a schema that does not compile is refused every time but compiled once, and cannot take a meta-schema away from the engine', () => {
    const hostile = () => ({ $id: 'http://json-schema.org/draft-07/schema', type: 'object', properties: { a: { type: 'nonsense' } } });
    const compiled = compiledSchemaCount();
    for (let step = 0; step < 3; step++) expect(validateArgs(hostile(), { a: 1 })[0]).toMatch(/input schema is invalid/);
    expect(compiledSchemaCount()).toBe(compiled + 1);
    // Schemas that declare the draft still compile against its meta-schema.
    const declared = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { n: { type: 'number', minimum: 2 } } };
    expect(validateArgs(declared, { n: 1 })).toEqual(['/n must be >= 2']);
  });
  it('checks pattern and patternProperties with a linear-time engine, as the schema means them (how long a hostile one takes: bench/mcp.bench.ts)', () => {
    const schema = {
      type: 'object',
      properties: { id: { type: 'string', pattern: '^[a-z]+-\\d{2,}$' }, text: { type: 'string', pattern: '^(a+)+$' } },
      patternProperties: { '^x-': { type: 'number' } },
    };
    expect(validateArgs(schema, { id: 'abc-42', text: 'aaaa', 'x-n': 1 })).toEqual([]);
    expect(validateArgs(schema, { id: 'ABC-4' })).toEqual(['/id must match pattern "^[a-z]+-\\d{2,}$"']);
    expect(validateArgs(schema, { text: `${'a'.repeat(5_000)}!` })).toEqual(['/text must match pattern "^(a+)+$"']);
    expect(validateArgs(schema, { 'x-n': 'one' })).toEqual(['/x-n must be number']);
    // Unicode, as the JSON Schema (ECMA-262 "u") reading has it: one code point is one character.
    expect(validateArgs({ type: 'string', pattern: '^.$' }, '😀')).toEqual([]);
  });
  it('leaves a pattern the linear engine cannot express (lookaround, backreferences) to the server rather than refusing every call', () => {
    const schema = { type: 'object', properties: { word: { type: 'string', pattern: '^(?!tmp)\\w+$' }, n: { type: 'number' } } };
    expect(validateArgs(schema, { word: 'tmpfile' })).toEqual([]);
    expect(validateArgs(schema, { word: 'x', n: 'no' })).toEqual(['/n must be number']);
  });
});
