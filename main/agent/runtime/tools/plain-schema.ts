/**
 * A check of a tool call's arguments that needs no JSON Schema engine, for the plain schemas built-in tools have
 * (and many MCP tools): objects of strings, numbers, booleans and arrays with lengths, bounds, enums of plain values,
 * required, closed and named properties. Loading Ajv and compiling a schema costs more CPU than a Read or a Bash step's own
 * work (issue 36, bench/peers.bench.ts), and a call the model gets right is the usual case.
 *
 * It answers only "certainly valid": true when the schema uses nothing but the keywords below, is well formed the
 * way the draft's meta-schema asks (so Ajv would have compiled it), and the value passes them as Ajv checks them.
 * Anything else (another keyword, `$ref`, `pattern`, a malformed schema, a value that fails) returns false and the
 * caller asks Ajv, which also words the errors: being wrong here could only ever send a call to Ajv.
 */

/** The drafts validate.ts compiles, as a schema declares them at its root. */
const KNOWN_DRAFTS = new Set([
  'http://json-schema.org/draft-07/schema#',
  'https://json-schema.org/draft/2019-09/schema',
  'https://json-schema.org/draft/2020-12/schema',
]);
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
/** Keywords that say nothing about the value (annotations). */
const TEXT_ANNOTATIONS = new Set(['description', 'title', '$comment']);
const COUNTS = new Set(['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties']);
const BOUNDS = new Set(['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']);

type Schema = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown) => typeof value === 'number' && Number.isInteger(value) && value >= 0;
const isPlain = (value: unknown) => value === null || ['string', 'number', 'boolean'].includes(typeof value);
const unique = (values: readonly unknown[]) => new Set(values).size === values.length;

/** Whether a (sub)schema uses only the keywords this check knows, each well formed. */
function supported(schema: unknown, root: boolean): schema is Schema {
  if (!isObject(schema)) return false;
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema') {
      if (!root || typeof value !== 'string' || !KNOWN_DRAFTS.has(value)) return false;
    } else if (TEXT_ANNOTATIONS.has(key)) {
      if (typeof value !== 'string') return false;
    } else if (key === 'default') continue;
    else if (key === 'examples') {
      if (!Array.isArray(value)) return false;
    } else if (key === 'type') {
      const types = Array.isArray(value) ? value : [value];
      if (!types.length || !unique(types) || !types.every((t) => typeof t === 'string' && TYPES.has(t))) return false;
    } else if (COUNTS.has(key)) {
      if (!isCount(value)) return false;
    } else if (BOUNDS.has(key)) {
      if (typeof value !== 'number') return false;
    } else if (key === 'enum') {
      if (!Array.isArray(value) || !value.every(isPlain)) return false;
    } else if (key === 'required') {
      if (!Array.isArray(value) || !value.every((name) => typeof name === 'string') || !unique(value)) return false;
    } else if (key === 'properties') {
      if (!isObject(value) || !Object.values(value).every((sub) => supported(sub, false))) return false;
    } else if (key === 'additionalProperties') {
      if (typeof value !== 'boolean' && !supported(value, false)) return false;
    } else if (key === 'items' || key === 'propertyNames') {
      if (!supported(value, false)) return false;
    } else return false;
  }
  return true;
}

/** Characters as JSON Schema counts them: code points (a surrogate pair is one), as Ajv's ucs2length does. */
function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    default:
      return isObject(value);
  }
}

/** Whether `value` passes a supported schema. */
function passes(schema: Schema, value: unknown): boolean {
  if (schema.type !== undefined && !(Array.isArray(schema.type) ? schema.type : [schema.type]).some((t: string) => typeMatches(t, value))) return false;
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false;
  const n = (key: string) => schema[key] as number | undefined;
  if (typeof value === 'string') {
    const length = n('minLength') !== undefined || n('maxLength') !== undefined ? codePoints(value) : 0;
    if (length < (n('minLength') ?? 0) || length > (n('maxLength') ?? Infinity)) return false;
  } else if (typeof value === 'number') {
    if (value < (n('minimum') ?? -Infinity) || value > (n('maximum') ?? Infinity)) return false;
    if (value <= (n('exclusiveMinimum') ?? -Infinity) || value >= (n('exclusiveMaximum') ?? Infinity)) return false;
  } else if (Array.isArray(value)) {
    if (value.length < (n('minItems') ?? 0) || value.length > (n('maxItems') ?? Infinity)) return false;
    if (schema.items !== undefined && !value.every((item) => passes(schema.items as Schema, item))) return false;
  } else if (isObject(value)) {
    const keys = Object.keys(value);
    if (keys.length < (n('minProperties') ?? 0) || keys.length > (n('maxProperties') ?? Infinity)) return false;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    // Own properties only, and no schema'd name an object inherits (`constructor`): Ajv reads `value[name]`, which would see it.
    for (const name of Object.keys(properties)) {
      if (Object.hasOwn(value, name)) {
        if (!passes(properties[name]!, value[name])) return false;
      } else if (value[name] !== undefined) return false;
    }
    if (Array.isArray(schema.required) && !schema.required.every((name: string) => Object.hasOwn(value, name))) return false;
    const extra = keys.filter((key) => !Object.hasOwn(properties, key));
    if (schema.additionalProperties === false && extra.length) return false;
    if (isObject(schema.additionalProperties) && !extra.every((key) => passes(schema.additionalProperties as Schema, value[key]))) return false;
    if (isObject(schema.propertyNames) && !keys.every((key) => passes(schema.propertyNames as Schema, key))) return false;
  }
  return true;
}

/** Schemas already found supported (or not): a tool's schema is checked once, not at every call. */
const verdicts = new WeakMap<object, boolean>();

/** Whether this check reads `schema` (uses only the keywords above, well formed). */
export function isPlainSchema(schema: Record<string, unknown>): boolean {
  let ok = verdicts.get(schema);
  if (ok === undefined) {
    try {
      ok = supported(schema, true);
    } catch {
      ok = false; // nested past the stack (a hostile MCP schema): Ajv's compile says what is wrong with it
    }
    verdicts.set(schema, ok);
  }
  return ok;
}

/** True only when `value` certainly passes `schema` (see above); false means "ask Ajv", not "invalid". */
export function certainlyValid(schema: Record<string, unknown>, value: unknown): boolean {
  return isPlainSchema(schema) && passes(schema, value);
}
