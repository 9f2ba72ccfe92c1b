import type { Authorization, ResolvedCall } from '../contract/calls';
import type { CommandHandlers } from '../contract/commands';
import type { ConnectionRequest, CoreContext, Capability, CapabilityFactory, SessionHandle } from '../contract/capability';
import { type SessionHooks, noHooks } from '../contract/hooks';
import type { NetworkVerdict } from '../contract/sandbox';
import type { TaskKind, TaskKindAdapter } from '../contract/tasks';

/**
 * The capabilities a core was given (hosts choose them: main/agent/capabilities.ts), and every call the runtime makes
 * to them. They answer in the order they were given; one that throws never breaks the others or the caller.
 */
export class CapabilitySet {
  readonly capabilities: readonly Capability[];
  /** The kinds of background task the capabilities run, by kind. */
  readonly taskKinds: ReadonlyMap<TaskKind, TaskKindAdapter>;

  constructor(factories: readonly CapabilityFactory[], core: CoreContext) {
    this.capabilities = factories.map((create) => create(core));
    this.taskKinds = new Map(this.capabilities.flatMap((f) => f.taskKinds ?? []).map((kind) => [kind.kind, kind]));
  }

  /**
   * Run a hook of every capability, in order; one that throws does not stop the others. Never rejects. One without
   * the hook costs no tick, so the first reaction starts synchronously (checkpoints' onTurnStart must hand over its
   * note before the turn's first step drains the injections).
   */
  async each(hook: (capability: Capability) => void | Promise<void>): Promise<void> {
    for (const capability of this.capabilities) {
      try {
        const pending = hook(capability);
        if (pending) await pending;
      } catch {
        // A capability's reaction must not break the turn or the other capabilities.
      }
    }
  }

  /** A state slot of a session took another value: every capability hears it, synchronously. */
  stateChanged(handle: SessionHandle, key: string, previous: unknown): void {
    for (const capability of this.capabilities) {
      try {
        capability.onStateChanged?.(handle, key, previous);
      } catch {
        // One capability's reaction must not break the change or the others.
      }
    }
  }

  /** The first decision wins; no decision allows. */
  async authorize(handle: SessionHandle, call: ResolvedCall): Promise<Authorization> {
    for (const capability of this.capabilities) {
      const decision = await capability.authorize?.(handle, call);
      if (decision) return decision;
    }
    return { allowed: true };
  }

  /** A sandboxed process's connection to a host the settings do not allow: the first verdict wins; none refuses. */
  async authorizeConnection(handle: SessionHandle, request: ConnectionRequest, signal: AbortSignal): Promise<NetworkVerdict> {
    for (const capability of this.capabilities) {
      const verdict = await capability.authorizeConnection?.(handle, request, signal);
      if (verdict) return verdict;
    }
    return { allowed: false, reason: 'it is not in "sandbox.network.allowedDomains"' };
  }

  /** The requests of a session waiting for the user's answer, from every capability. */
  waitingFor(sessionId: string): Array<{ id: string; turnId: string }> {
    return this.capabilities.flatMap((f) => f.waitingFor?.(sessionId) ?? []);
  }

  /** Whether every capability lets the session go: none waits for the user in it or has live work for it. */
  allowUnload(sessionId: string): boolean {
    return this.capabilities.every((capability) => {
      try {
        return !capability.waitingFor?.(sessionId).length && capability.canUnload?.(sessionId) !== false;
      } catch {
        return false;
      }
    });
  }

  /** The user's hook commands for a session: the first capability that runs them serves (none: hooks do nothing). */
  hookRunner(handle: SessionHandle): SessionHooks {
    return this.capabilities.map((f) => f.hookRunner?.(handle)).find((runner) => runner !== undefined) ?? noHooks;
  }

  /** The protocol commands the capabilities implement, over `base` (a later capability's command wins). */
  commands(base: Partial<CommandHandlers>): Partial<CommandHandlers> {
    const merged: Partial<CommandHandlers> = { ...base };
    for (const capability of this.capabilities) Object.assign(merged, capability.commands);
    return merged;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.capabilities.map(async (f) => f.close?.()));
  }
}
