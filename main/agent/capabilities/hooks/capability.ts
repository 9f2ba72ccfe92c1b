import type { CapabilityFactory, SessionHandle } from '#contract/capability';
import type { SessionHooks } from '#contract/hooks';
import { HookConfig } from './config';
import { hookManager } from './manage';
import { sessionHooks } from './runner';

/**
 * Hooks: the user's commands on the agent's events (PreToolUse, PostToolUse, UserPromptSubmit, Stop,
 * SubagentStop, PreCompact, SessionStart, SessionEnd, Notification), read from the `"hooks"` section of
 * the three settings files in the shape other agents use. The runtime fires the events through
 * SessionHandle.hooks; this capability runs the commands (a workspace's in the sandbox, the user's own as the user) and reads what they said.
 * On a remote folder the workspace's hooks run on that machine, the user's on this one (run-where.ts).
 */
export const hooksCapability: CapabilityFactory = (core) => {
  const config = new HookConfig(core.home, core.place);
  const runners = new Map<string, SessionHooks>();
  const load = async () => {
    const loaded = await config.load();
    if (loaded.changed) core.emitApp({ type: 'hooks.updated', overview: loaded.overview });
    return loaded;
  };
  const manager = hookManager(core, config, load);
  return {
    name: 'hooks',
    hookRunner: (session: SessionHandle) => {
      let runner = runners.get(session.id);
      if (!runner) {
        const inner = sessionHooks(core, config, session);
        runner = {
          has: (event) => inner.has(event),
          // Each firing looks at the files again (cheaply), so Settings hears of a change as it is used.
          fire: async (input, options) => {
            await load().catch(() => {});
            return inner.fire(input, options);
          },
        };
        runners.set(session.id, runner);
      }
      return runner;
    },
    onSessionUnloaded: (session) => void runners.delete(session.id),
    onSessionDeleted: (sessionId) => void runners.delete(sessionId),
    commands: {
      listHooks: async () => (await load()).overview,
      addHook: async (input) => {
        await manager.add(input);
        return (await load()).overview;
      },
      setHookDisabled: async ({ disabled, ...ref }) => {
        await manager.setDisabled(ref, disabled);
        return (await load()).overview;
      },
      testHook: (ref) => manager.test(ref),
    },
  };
};
