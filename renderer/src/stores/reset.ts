import { useAgentLive, useAgents } from './agents';
import { useApprovals } from './approvals';
import { useCheckpointDialog, useCheckpoints } from './checkpoints';
import { useElsewhere } from './elsewhere';
import { useGoal } from './goal';
import { useHistory } from './history';
import { useHooks } from './hooks';
import { useMcp } from './mcp';
import { useMemory } from './memory';
import { useMeter } from './meter';
import { useModes } from './modes';
import { usePermissions } from './permissions';
import { useQueue } from './queue';
import { useSessions } from './sessions';
import { useSkills } from './skills';
import { useTasks } from './tasks';
import { useTodo } from './todo';
import { useTranscript } from './transcript';
import { useUi } from './ui';
import { useViewer } from './viewer';
import { useWorktrees } from './worktrees';

/** A store to put back to its first state. */
interface Resettable {
  getInitialState(): unknown;
  setState(state: never, replace: true): void;
}

/** Every store that holds what one core said (its sessions, their transcripts, tasks, approvals, rules, …). */
const perCore: Resettable[] = [
  useAgents,
  useAgentLive,
  useApprovals,
  useCheckpoints,
  useCheckpointDialog,
  useElsewhere,
  useGoal,
  useHistory,
  useHooks,
  useMcp,
  useMemory,
  useMeter,
  useModes,
  usePermissions,
  useQueue,
  useSessions,
  useSkills,
  useTasks,
  useTodo,
  useTranscript,
  useViewer,
  useWorktrees,
];

/**
 * The window now shows another core (the web host switched this tab, in place): every store of what the core said
 * goes back to its first state, to be filled again from the new core. Kept: the settings and preferences (the user's,
 * the same in every core: no flash of the start screen), the window's own layout; the banner and a set-aside plan go.
 */
export function resetCoreStores(): void {
  for (const store of perCore) store.setState(store.getInitialState() as never, true);
  useUi.setState({ banner: null, hiddenPlan: null, drawerOpen: false });
}
