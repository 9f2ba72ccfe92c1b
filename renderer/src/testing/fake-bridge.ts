import type { CommandName, DeftEvent } from '#protocol';
import { type BridgeTransport, createBridge } from '#protocol/helpers/bridge';

/** A command the UI sent, as the core would receive it. */
export interface SentCommand {
  name: CommandName;
  input: unknown;
}

type Reply = (input: never) => unknown;

/**
 * The real bridge (`createBridge`) over a transport that stands in for the core: it records every command
 * and answers with what a test set (an empty result otherwise), so a test asserts what a click sends.
 */
export function fakeCore() {
  const sent: SentCommand[] = [];
  const replies = new Map<CommandName, Reply>();
  const listeners = new Set<(event: DeftEvent) => void>();
  const transport: BridgeTransport = {
    invoke: async (name, input) => {
      sent.push({ name, input });
      const reply = replies.get(name);
      return { ok: true, result: reply ? reply(input as never) : {} } as never;
    },
    subscribe: (callback) => {
      listeners.add(callback);
      return () => listeners.delete(callback);
    },
  };
  return {
    bridge: createBridge(transport),
    sent,
    /** What the core answers to a command from now on. */
    reply<N extends CommandName>(name: N, answer: Reply): void {
      replies.set(name, answer);
    },
    /** The commands sent with this name, their inputs in order. */
    inputsOf(name: CommandName): unknown[] {
      return sent.filter((c) => c.name === name).map((c) => c.input);
    },
    emit(event: DeftEvent): void {
      for (const listener of listeners) listener(event);
    },
    reset(): void {
      sent.length = 0;
      replies.clear();
    },
  };
}

export type FakeCore = ReturnType<typeof fakeCore>;
