import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { ajvClass, re2 } from '#infra/platform/on-demand';
import { certainlyValid } from './plain-schema';

type Draft = 'draft-07' | '2019-09' | '2020-12';

function draftOf(schema: Record<string, unknown>): Draft {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (declared.includes('2020-12')) return '2020-12';
  if (declared.includes('2019-09')) return '2019-09';
  if (declared) return 'draft-07';
  const text = JSON.stringify(schema);
  if (text.includes('"prefixItems"') || text.includes('"$dynamicRef"')) return '2020-12';
  if (text.includes('"unevaluatedProperties"') || text.includes('"dependentRequired"') || text.includes('"$recursiveRef"')) return '2019-09';
  return 'draft-07';
}

/**
 * `pattern` and `patternProperties` run on RE2 (re2js): matching takes time linear in the input, so a
 * hostile schema (an MCP server's `^(a+)+$`) cannot freeze the process with catastrophic backtracking. A
 * pattern RE2 cannot express (lookaround, backreferences) is left to the server, which checks its own
 * input: refusing every call over it would make a working tool unusable.
 */
export function linearRegExp(pattern: string): { test(text: string): boolean; toString(): string } {
  // Ajv shares one compiled pattern between schemas by its toString().
  const toString = () => `re2:${pattern}`;
  try {
    const compiled = re2().compile(pattern);
    return { test: (text) => compiled.test(text), toString };
  } catch {
    return { test: () => true, toString };
  }
}
linearRegExp.code = 'linearRegExp';

const engines = new Map<Draft, Ajv>();
function engine(draft: Draft): Ajv {
  let ajv = engines.get(draft);
  if (!ajv) {
    const options = { strict: false, allErrors: true, validateFormats: false, code: { regExp: linearRegExp } };
    ajv = new (ajvClass[draft]())(options);
    engines.set(draft, ajv);
  }
  return ajv;
}

/**
 * Validators by schema object, and by schema text: each step builds its tools' schemas afresh (a new registry
 * per step), so the same schema arrives as a new object every turn. Compiled once per distinct text, a schema
 * does not cost a compilation, nor leave one more compiled copy in the engine, each time (an Ajv instance keeps
 * what it compiled for good).
 */
const byObject = new WeakMap<object, ValidateFunction>();
/** A schema that did not compile is remembered too, so a broken one is not compiled again at every step. */
const byText = new Map<string, ValidateFunction | Error>();
let compilations = 0;

function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  const known = byObject.get(schema);
  if (known) return known;
  const text = JSON.stringify(schema);
  let validate = byText.get(text);
  if (!validate) {
    const ajv = engine(draftOf(schema));
    compilations++;
    try {
      validate = ajv.compile(schema);
      // The engine would also keep the schema object as a key, and refuse a second schema with the same $id.
      // (Only after a success: a failed one may carry the $id of a schema the engine needs, e.g. a meta-schema.)
      ajv.removeSchema(schema);
    } catch (error) {
      validate = error instanceof Error ? error : new Error(String(error));
    }
    byText.set(text, validate);
  }
  if (validate instanceof Error) throw validate;
  byObject.set(schema, validate);
  return validate;
}

/**
 * Validate arguments against a JSON Schema of any draft; returns one readable line per problem. Arguments a plain
 * schema certainly accepts pass without Ajv (plain-schema.ts): a step whose calls are right loads no schema engine.
 */
export function validateArgs(schema: Record<string, unknown>, args: unknown): string[] {
  if (certainlyValid(schema, args)) return [];
  let validate: ValidateFunction;
  try {
    validate = validatorFor(schema);
  } catch (error) {
    // A schema from elsewhere (an MCP server) may not compile: the call cannot be checked, so it is refused.
    return [`the tool's input schema is invalid, so no call to it can be checked (${(error as Error).message}); tell the user the tool is broken`];
  }
  if (validate(args)) return [];
  return dedupe((validate.errors ?? []).map(describe));
}

/** How many schemas the engines hold (their meta-schemas; what validateArgs compiles is kept here instead), for tests. */
export function schemasHeldByEngines(): number {
  return [...engines.values()].reduce((n, ajv) => n + (ajv as unknown as { _cache: Map<unknown, unknown> })._cache.size, 0);
}

/** How many schemas have been compiled so far (for tests). */
export function compiledSchemaCount(): number {
  return compilations;
}

/** One readable line for an Ajv error. */
export function describe(error: ErrorObject): string {
  const where = error.instancePath ? ` at ${error.instancePath}` : '';
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties':
      return `must NOT have additional property '${String(params.additionalProperty)}'${where}`;
    case 'required':
      return `must have required property '${String(params.missingProperty)}'${where}`;
    case 'enum':
      return `${where ? where.slice(4) : 'value'} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    default:
      return `${where ? where.slice(4) + ' ' : ''}${error.message ?? 'is invalid'}`;
  }
}

function dedupe(lines: string[]): string[] {
  return [...new Set(lines)];
}
