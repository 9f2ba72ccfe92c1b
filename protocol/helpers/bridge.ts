import type { CommandInput, CommandName, CommandOutput, CommandReply } from '../schemas/commands';
import { commandNames, eventTypeNames } from './names';
import type { DeftEvent, DeftEventOf, DeftEventType, SessionEvent } from '../schemas/events';
import type { ErrorCode } from '../schemas/session';

type Pascal<S extends string> = S extends `${infer H}.${infer T}` ? `${Capitalize<H>}${Pascal<T>}` : Capitalize<S>;

type CommandFns = {
  [K in CommandName]: (
    ...args: Record<never, never> extends CommandInput<K> ? [input?: CommandInput<K>] : [input: CommandInput<K>]
  ) => Promise<CommandOutput<K>>;
};
type EventFns = { [K in DeftEventType as `on${Pascal<K>}`]: (callback: (event: DeftEventOf<K>) => void) => () => void };

/** The object a UI talks to (`window.deft`): commands as async functions, events as `onX(callback) → unsubscribe`. */
export type DeftBridge = CommandFns &
  EventFns & {
    /** Every event, in order. */
    onEvent(callback: (event: DeftEvent) => void): () => void;
    /** Transport state (the web shim reconnects; Electron is always 'open'). */
    onConnection(callback: (state: 'open' | 'closed') => void): () => void;
  };

/** Electron IPC channels: one for commands (invoke), one for events (main → renderer). */
export const IPC_COMMAND_CHANNEL = 'deft:command';
export const IPC_EVENT_CHANNEL = 'deft:event';
/** The window asks to show another core (a worktree by name, or null: its folder's); the answer is the HostView. */
export const IPC_VIEW_CHANNEL = 'deft:view';
/** The main process tells the window which core it shows now (`HostView`), before that core's events. */
export const IPC_VIEW_EVENT_CHANNEL = 'deft:view-event';

/** How a bridge reaches the core: one request/response call and one event stream. */
export interface BridgeTransport {
  invoke(name: CommandName, input: unknown): Promise<CommandReply>;
  subscribe(callback: (event: DeftEvent) => void): () => void;
  onConnection?(callback: (state: 'open' | 'closed') => void): () => void;
}

/** A failed command. The code survives transports that only carry the message (Electron's contextBridge). */
export class DeftError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(`[${code}] ${message}`);
    this.name = 'DeftError';
  }

  /** The message without the code prefix. */
  get detail(): string {
    return this.message.replace(/^\[[a-z_]+\] /, '');
  }

  static from(error: unknown): DeftError {
    if (error instanceof DeftError) return error;
    const message = error instanceof Error ? error.message : String(error);
    const match = /\[([a-z_]+)\] ([\s\S]*)$/.exec(message);
    if (match?.[1] && match[2] !== undefined) return new DeftError(match[1] as ErrorCode, match[2]);
    return new DeftError('internal', message);
  }
}

/** Session events carry a per-session `seq`; app events do not. */
export function isSessionEvent(event: DeftEvent): event is SessionEvent {
  return 'seq' in event;
}

export const eventHandlerName = (type: string): string =>
  'on' +
  type
    .split('.')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

/** Build the bridge for a transport. Event handler names are derived from event types. */
export function createBridge(transport: BridgeTransport, eventTypes: readonly string[] = eventTypeNames): DeftBridge {
  const bridge: Record<string, unknown> = {};
  for (const name of commandNames) {
    bridge[name] = async (input: unknown = {}) => {
      const reply = await transport.invoke(name, input);
      if (!reply.ok) throw new DeftError(reply.error.code, reply.error.message);
      return reply.result;
    };
  }
  bridge.onEvent = (callback: (event: DeftEvent) => void) => transport.subscribe(callback);
  bridge.onConnection = (callback: (state: 'open' | 'closed') => void) => transport.onConnection?.(callback) ?? (() => {});
  for (const type of eventTypes) {
    bridge[eventHandlerName(type)] = (callback: (event: DeftEvent) => void) =>
      transport.subscribe((event) => {
        if (event.type === type) callback(event);
      });
  }
  return bridge as DeftBridge;
}
