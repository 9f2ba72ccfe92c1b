import type { SessionHandle } from '../main/agent/contract/capability';
import type { WorkspaceSandbox } from '../main/agent/contract/sandbox';
import { noHooks } from '../main/agent/contract/hooks';
import { Sandbox } from '../main/agent/infra/sandbox/sandbox';
import { TaskBoard } from '../main/agent/infra/tasks/task-board';

/** No OS sandbox for what runs for the workspace: for core contexts built by hand in tests. */
export function noWorkspaceSandbox(dir: string): WorkspaceSandbox {
  return new Sandbox({ workspace: dir, home: dir, support: { kind: null } }).forWorkspace();
}

/** A session handle that records nothing and starts no turns: for exercising tools and capabilities alone. */
export function inertSessionHandle(id: string, dir: string): SessionHandle {
  const quiet = { running: false, startTurn: async () => null, inject: () => {} };
  return {
    id,
    dir,
    running: false,
    emit: () => {},
    state: (slot) => ({ get: () => slot.fallback, set: () => {} }),
    startTurn: async () => null,
    inject: () => {},
    usage: () => ({ inputTokens: 0, outputTokens: 0 }),
    tasks: new TaskBoard({ sessionId: id, sessionDir: dir, session: quiet, emitApp: () => {} }),
    // No OS sandbox: commands run as they are, with the scrubbed environment.
    sandbox: new Sandbox({ workspace: dir, home: dir, support: { kind: null } }).forSession(id, async () => ({
      allowed: false,
      reason: 'no network in this test',
    })),
    hooks: noHooks,
    contextTurns: () => [],
    flush: async () => {},
    undoFrom: async () => [],
    redoUndo: async () => {},
    subagents: {
      create: async () => {
        throw new Error('This test session has no sub-agents.');
      },
      open: async () => undefined,
      list: async () => [],
    },
  };
}
