import type { z } from 'zod';
import { builtOnce } from '#protocol/helpers/built-once';

/**
 * A named piece of session state a capability declares: its key in the session log (state records,
 * replayed on resume, restored by undo) and the schema its value must have. A value that does not
 * match (a damaged or older log) reads as `fallback`, never as an unchecked cast.
 */
export interface StateSlot<T> {
  readonly key: string;
  readonly schema: z.ZodType<T>;
  readonly fallback: T;
}

/** Reads and writes of one slot of one session. */
export interface SlotAccess<T> {
  get(): T;
  set(value: T): void;
}

/**
 * Declare a slot. The schema validates and must not transform: `get()` returns the stored value itself
 * (so a value read twice is the same object), once it has been checked.
 */
export function stateSlot<T>(key: string, schema: z.ZodType<T> | (() => z.ZodType<T>), fallback: T): StateSlot<T> {
  if (typeof schema !== 'function') return { key, schema, fallback };
  // A schema given as a function is built the first time a value is checked: a run that never reads the slot
  // (the CLI's text turn, for most slots) never builds it.
  const built = builtOnce(schema);
  return {
    key,
    get schema() {
      return built();
    },
    fallback,
  };
}

const checked = new WeakMap<StateSlot<unknown>, WeakMap<object, boolean>>();

/** A stored value as the slot's type: itself when it matches the schema, else the fallback (also when unset). */
export function readSlot<T>(slot: StateSlot<T>, stored: unknown): T {
  if (stored === undefined) return slot.fallback;
  if (stored === null || typeof stored !== 'object') return slot.schema.safeParse(stored).success ? (stored as T) : slot.fallback;
  let seen = checked.get(slot);
  if (!seen) checked.set(slot, (seen = new WeakMap()));
  let valid = seen.get(stored);
  if (valid === undefined) seen.set(stored, (valid = slot.schema.safeParse(stored).success));
  return valid ? (stored as T) : slot.fallback;
}
