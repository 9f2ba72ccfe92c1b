import type { SessionEvent, SessionEventOf, SessionEventType } from '#protocol';

/** What a domain does with the session events it owns: one pure handler per event type. */
export type Handlers<S> = { readonly [T in SessionEventType]?: (state: S, event: SessionEventOf<T>) => S };

type AnyHandler<S> = (state: S, event: SessionEvent) => S;

/**
 * A domain's part of a session's state, rebuilt from the session's events (replayed when the session
 * opens, then live). It handles the events it owns; the others pass it by.
 */
export interface SessionSlice<S> {
  readonly empty: S;
  readonly on: Handlers<S>;
  /** After a batch: a slice whose handlers change what they made during the batch in place fixes it here (rows.ts). */
  readonly seal?: (state: S) => void;
}

/** Apply events in order. A slice that owns none of them returns the very state it was given. */
export function reduce<S>(slice: SessionSlice<S>, state: S, events: readonly SessionEvent[]): S {
  let next = state;
  for (const event of events) {
    const handle = slice.on[event.type] as AnyHandler<S> | undefined;
    if (handle) next = handle(next, event);
  }
  slice.seal?.(next);
  return next;
}

/** Several domains' handlers for one state, as one table. Where more than one handles an event, they run in the order given. */
export function combine<S>(...tables: ReadonlyArray<Handlers<S>>): Handlers<S> {
  const out: Partial<Record<SessionEventType, AnyHandler<S>>> = {};
  for (const table of tables) {
    for (const [type, handle] of Object.entries(table) as Array<[SessionEventType, AnyHandler<S>]>) {
      const before = out[type];
      out[type] = before ? (state, event) => handle(before(state, event), event) : handle;
    }
  }
  return out;
}

/** Handlers of one part of a state, as handlers of the whole (the part is put back only when it changed). */
export function lift<S, P>(table: Handlers<P>, get: (state: S) => P, put: (state: S, part: P) => S): Handlers<S> {
  const out: Partial<Record<SessionEventType, AnyHandler<S>>> = {};
  for (const [type, handle] of Object.entries(table) as Array<[SessionEventType, AnyHandler<P>]>) {
    out[type] = (state, event) => {
      const part = get(state);
      const next = handle(part, event);
      return next === part ? state : put(state, next);
    };
  }
  return out;
}
