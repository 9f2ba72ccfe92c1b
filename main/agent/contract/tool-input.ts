import type { z } from 'zod';
import precomputed from './tool-schemas.json';

/**
 * A built-in tool's input schema, built the first time a call of the tool arrives. What the model is sent (the
 * JSON Schema `toModelSchema` derives from it) is read from tool-schemas.json, generated from these schemas and
 * checked against them by main/agent/tool-schemas.test.ts (`-u` rewrites it): a one-shot text turn offers every
 * tool, and building ~30 zod schemas and converting them cost a cold `deft run` more than the turn itself
 * (issue 36). An input whose id is not in the file (a new tool before the file is regenerated) is converted at
 * its first use, as before.
 *
 * Only for schemas that are the same in every process: `build` must not depend on settings or on the session.
 */
export class LazyToolInput<S extends z.ZodType = z.ZodType> {
  private built: S | undefined;
  /** The JSON Schema the model is sent (with `$schema`), frozen; undefined when it is not in tool-schemas.json. */
  readonly modelSchema: Record<string, unknown> | undefined;

  constructor(
    readonly id: string,
    private readonly build: () => S,
  ) {
    const known = (precomputed as Record<string, Record<string, unknown>>)[id];
    this.modelSchema = known ? deepFreeze(known) : undefined;
  }

  /** The zod schema arguments are validated against (built once, on first use). */
  schema(): S {
    this.built ??= this.build();
    return this.built;
  }
}

/** Every lazy input made in this process, by id: what tool-schemas.test.ts checks tool-schemas.json against. */
export const toolInputs = new Map<string, LazyToolInput>();
/** Ids given to two different inputs (a mistake the test reports: the second would be sent the first's schema). */
export const duplicateToolInputIds: string[] = [];

/** A lazily built, precomputed tool input (see LazyToolInput). Call it at module level: one per schema. */
export function toolInput<S extends z.ZodType>(id: string, build: () => S): LazyToolInput<S> {
  const input = new LazyToolInput(id, build);
  if (toolInputs.has(id)) duplicateToolInputIds.push(id);
  else toolInputs.set(id, input);
  return input;
}

/** The zod schema of a tool's `input` (a schema, or a lazy one). */
export function inputSchemaOf<S extends z.ZodType>(input: S | LazyToolInput<S>): S {
  return input instanceof LazyToolInput ? input.schema() : input;
}

/** The zod schema type of a tool's `input`: `z.output<SchemaOf<typeof input>>` is a tool's arguments. */
export type SchemaOf<T> = T extends LazyToolInput<infer S> ? S : T;

function deepFreeze<T>(node: T): T {
  if (!node || typeof node !== 'object' || Object.isFrozen(node)) return node;
  Object.freeze(node);
  for (const value of Object.values(node)) deepFreeze(value);
  return node;
}
