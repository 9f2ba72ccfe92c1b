import { describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import toolSchemas from '../../contract/tool-schemas.json';
import { certainlyValid, isPlainSchema } from './plain-schema';

const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
const ajv2020 = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
/** What Ajv, as validate.ts sets it up, says of a value: valid, invalid, or the schema does not compile. */
function ajvSays(schema: Record<string, unknown>, value: unknown): 'valid' | 'invalid' | 'broken' {
  try {
    const engine = schema.$schema === 'https://json-schema.org/draft/2020-12/schema' ? ajv2020 : ajv;
    const validate = engine.compile(schema);
    engine.removeSchema(schema);
    return validate(value) ? 'valid' : 'invalid';
  } catch {
    return 'broken';
  }
}

const schemas = toolSchemas as Record<string, Record<string, unknown>>;

describe('certainlyValid', () => {
  it('accepts the calls a model usually makes to built-in tools without a schema engine', () => {
    expect(certainlyValid(schemas.Read!, { path: 'README.md' })).toBe(true);
    expect(certainlyValid(schemas.Read!, { path: 'a.ts', line_offset: -100, n_lines: 50 })).toBe(true);
    expect(certainlyValid(schemas.Bash!, { command: 'ls', description: 'List files', timeout: 30 })).toBe(true);
    expect(certainlyValid(schemas.Edit!, { path: 'a.ts', old_string: 'a', new_string: 'b' })).toBe(true);
    expect(certainlyValid(schemas.TodoList!, { todos: [{ title: 'Read', status: 'in_progress' }] })).toBe(true);
    // Every built-in tool's schema is one the check reads (a new keyword in one would send its calls to Ajv again).
    expect(Object.keys(schemas).filter((name) => !isPlainSchema(schemas[name]!))).toEqual([]);
  });

  it('never says valid where Ajv would refuse: every built-in schema against right and wrong values', () => {
    const values: unknown[] = [
      null,
      'text',
      1,
      [],
      {},
      { path: 'README.md' },
      { path: 1 },
      { path: 'a', extra: true },
      { command: '' },
      { command: 'ls', timeout: 0 },
      { command: 'ls', timeout: 1.5 },
      { command: 'ls', timeout: 86_401 },
      { command: 'ls', description: 'x'.repeat(201) },
      { command: 'ls', run_in_background: 'yes' },
      { path: 'a', line_offset: -1001 },
      { todos: [] },
      { todos: [{ title: 'a', status: 'done' }] },
      { todos: [{ title: '', status: 'done' }] },
      { todos: [{ title: 'a', status: 'finished' }] },
      { pattern: '*.ts' },
      { query: '😀'.repeat(3) },
      JSON.parse('{"__proto__": {"path": "x"}}'),
    ];
    let certain = 0;
    for (const [name, schema] of Object.entries(schemas))
      for (const value of values)
        if (certainlyValid(schema, value)) {
          certain++;
          expect({ name, value, ajv: ajvSays(schema, value) }).toEqual({ name, value, ajv: 'valid' });
        }
    // The check does answer for these schemas (it is not "false" throughout).
    expect(certain).toBeGreaterThan(5);
  });

  it('leaves to Ajv what it does not know or what is malformed, so a broken schema is still refused', () => {
    const cases: Array<[Record<string, unknown>, unknown]> = [
      [{ type: 'object', properties: { a: { type: 'nonsense' } } }, { a: 1 }],
      [{ type: 'object', required: ['a', 'a'] }, { a: 1 }],
      [{ type: 'string', minLength: -1 }, 'x'],
      [{ type: 'string', pattern: '^a$' }, 'a'],
      [{ $ref: '#/definitions/x', definitions: { x: { type: 'string' } } }, 'a'],
      [{ $schema: 'http://json-schema.org/draft-04/schema#', type: 'string' }, 'a'],
      [{ type: 'object', properties: { a: { type: 'string', $schema: 'http://json-schema.org/draft-07/schema#' } } }, { a: 'x' }],
      [{ type: 'string', description: 5 }, 'a'],
      [{ enum: [{ a: 1 }] }, { a: 1 }],
      [{ type: 'object', properties: { a: true } }, { a: 1 }],
      [{ type: 'array', items: [{ type: 'string' }] }, ['a']],
    ];
    for (const [schema, value] of cases) expect(certainlyValid(schema, value)).toBe(false);
  });

  it('checks as Ajv checks: lengths in code points, bounds, enums, closed and inherited properties', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 2, maxLength: 3 },
        n: { type: ['integer', 'null'], minimum: 1, exclusiveMaximum: 5 },
        mode: { enum: ['a', 'b', 3] },
        list: { type: 'array', items: { type: 'number' }, maxItems: 2 },
        constructor: { type: 'string' },
        free: { type: 'object', additionalProperties: { type: 'boolean' }, propertyNames: { type: 'string', maxLength: 2 } },
      },
      required: ['name'],
      additionalProperties: false,
    };
    const values: unknown[] = [
      { name: '😀😀' },
      { name: '😀' },
      { name: 'abcd' },
      { name: 'ab', n: null },
      { name: 'ab', n: 5 },
      { name: 'ab', n: 4 },
      { name: 'ab', n: 0 },
      { name: 'ab', n: 2.5 },
      { name: 'ab', mode: 3 },
      { name: 'ab', mode: 'c' },
      { name: 'ab', list: [1, 2] },
      { name: 'ab', list: [1, 2, 3] },
      { name: 'ab', list: ['1'] },
      { name: 'ab', constructor: 'x' },
      { name: 'ab', free: { a: true } },
      { name: 'ab', free: { a: 1 } },
      { name: 'ab', free: { abc: true } },
      { name: 'ab', other: 1 },
      { n: 1 },
    ];
    for (const value of values) expect({ value, certain: certainlyValid(schema, value) }).toEqual({ value, certain: ajvSays(schema, value) === 'valid' });
  });
});

describe('a schema nested past the stack', () => {
  it('is left to Ajv instead of throwing', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 200_000; i++) schema = { type: 'object', properties: { a: schema } };
    expect(certainlyValid(schema, {})).toBe(false);
  });
});
