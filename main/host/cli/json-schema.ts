import { existsSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { ajvClasses, ajvFormats } from '#infra/platform/on-demand';
import { describe, linearRegExp } from '#runtime/tools/validate';

// deft run --json-schema: the final answer must be JSON valid against the schema.

/** The largest schema accepted (its text): it goes into the prompt. */
export const MAX_SCHEMA_BYTES = 64 * 1024;
/** Answers the model gets in all (the first and the corrections) before the run fails. */
export const MAX_SCHEMA_ATTEMPTS = 3;
const MAX_ERRORS_TOLD = 20;

export interface AnswerSchema {
  /** The schema's text, compact, for the prompt. */
  text: string;
  check(answer: string): { ok: true; value: unknown } | { ok: false; errors: string[] };
}

/**
 * The schema of `--json-schema FILE_OR_JSON`: a file's path, or the JSON itself (text starting with `{`).
 * Throws a message for the usage error: unreadable, not JSON, too big, not a schema Ajv compiles, or a schema
 * whose checking does not end (a `$ref` that loops on itself).
 */
export function loadAnswerSchema(given: string, cwd: string): AnswerSchema {
  let raw = given;
  if (!given.trim().startsWith('{')) {
    const file = resolve(cwd, given);
    if (!existsSync(file) || !statSync(file).isFile()) throw new Error(`--json-schema ${given}: not a file, nor a JSON object`);
    if (statSync(file).size > MAX_SCHEMA_BYTES) throw new Error(`--json-schema ${given}: the schema is larger than ${MAX_SCHEMA_BYTES / 1024} KB`);
    raw = readFileSync(file, 'utf8');
  }
  if (Buffer.byteLength(raw) > MAX_SCHEMA_BYTES) throw new Error(`--json-schema: the schema is larger than ${MAX_SCHEMA_BYTES / 1024} KB`);
  let schema: unknown;
  try {
    schema = JSON.parse(raw);
  } catch (error) {
    throw new Error(`--json-schema: not valid JSON (${(error as Error).message})`, { cause: error });
  }
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) throw new Error('--json-schema: the schema must be a JSON object');
  const declared = typeof (schema as { $schema?: unknown }).$schema === 'string' ? (schema as { $schema: string }).$schema : '';
  const options = { strict: false, allErrors: true, code: { regExp: linearRegExp } };
  const { Ajv, Ajv2019, Ajv2020 } = ajvClasses();
  const ajv = declared.includes('2020-12') ? new Ajv2020(options) : declared.includes('2019-09') ? new Ajv2019(options) : new Ajv(options);
  ajvFormats()(ajv);
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw new Error(`--json-schema: not a schema that can be checked (${(error as Error).message})`, { cause: error });
  }
  // A schema whose checking never ends ({"$ref": "#"}) overflows the stack on any value: refused now, not mid-run.
  for (const probe of [null, {}, [], '', 0]) {
    try {
      validate(probe);
    } catch (error) {
      throw new Error(`--json-schema: the schema cannot be checked (${(error as Error).message}); does a $ref refer to itself?`, { cause: error });
    }
  }
  return {
    text: JSON.stringify(schema),
    check(answer) {
      const text = unfenced(answer.trim());
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        return { ok: false, errors: [`the answer is not JSON (${(error as Error).message})`] };
      }
      let valid: boolean;
      try {
        valid = validate(value);
      } catch (error) {
        return { ok: false, errors: [`the answer could not be checked (${(error as Error).message})`] };
      }
      if (valid) return { ok: true, value };
      const errors = [...new Set((validate.errors ?? []).map(describe))];
      return {
        ok: false,
        errors: errors.length > MAX_ERRORS_TOLD ? [...errors.slice(0, MAX_ERRORS_TOLD), `…and ${errors.length - MAX_ERRORS_TOLD} more`] : errors,
      };
    },
  };
}

/** An answer wholly inside one Markdown code fence (```json … ```) is read without the fence. */
function unfenced(text: string): string {
  const match = /^```[a-zA-Z]*\n([\s\S]*)\n```$/.exec(text);
  return match ? match[1]!.trim() : text;
}

/** What the prompt gains: the schema the final answer must follow. */
export function schemaInstruction(schema: AnswerSchema): string {
  return `\n\nYour final answer must be only a JSON value, with no other text and no code fence, valid against this JSON Schema:\n${schema.text}`;
}

/** The follow-up message when the answer did not pass. */
export function schemaCorrection(errors: readonly string[], schema: AnswerSchema): string {
  return `Your final answer did not pass the JSON Schema check:\n${errors.map((e) => `- ${e}`).join('\n')}\nAnswer again with only a JSON value valid against the schema (no other text, no code fence):\n${schema.text}`;
}
