import { useEffect } from 'react';
import { watchAttention } from './actions/attention';
import { loadPreferences } from './actions/preferences';
import { loadInitial, newSession, resync } from './actions/sessions';
import { refreshSkills } from './actions/skills';
import { followHostView, switchToWorktree } from './actions/worktrees';
import { useAppliedTheme } from './features/appearance/theme';
// Sub-agent and swarm cards (they render tool cards of their own, so they register themselves).
import './features/agents/register';
import { Composer } from './features/composer/Composer';
import { FileViewer } from './features/files/FileViewer';
import { Dock } from './features/dock/Dock';
import { CheckpointLayer } from './features/checkpoints/CheckpointLayer';
import { Banners } from './features/conversation/Banners';
import { Conversation } from './features/conversation/Conversation';
import { Header } from './features/conversation/Header';
import { warmWindowWhenIdle } from './features/conversation/window-warmup';
import { FirstRun } from './features/onboarding/FirstRun';
import { RuleProblems } from './features/permissions/RuleProblems';
import { PlanReview, usePendingPlan } from './features/plan/PlanReview';
import { QuestionDialog } from './features/questions/QuestionDialog';
import { ShortcutsSheet } from './features/layout/ShortcutsSheet';
import { SidebarDrawer } from './features/layout/SidebarDrawer';
import { useWindowTitle } from './features/layout/window-title';
import { toggleSidebar, useSidebarPlacement } from './features/layout/window-size';
import { Sidebar } from './features/sessions/Sidebar';
import { WorktreesLayer } from './features/worktrees/WorktreesView';
import { RemoteLayer } from './features/remote/RemoteFolderDialog';
import { SettingsDialog } from './features/settings/SettingsDialog';
import { SkillsLayer } from './features/skills/SkillsLayer';
import { TasksPanel } from './features/tasks/TasksPanel';
import { bindStores } from './stores/bind';
import { useSettings } from './stores/settings';
import { useSkills } from './stores/skills';
import { useTasks } from './stores/tasks';
import { useUi } from './stores/ui';

function useShortcuts() {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      // Behind a modal dialog the session and the composer are out of reach.
      const modal = document.querySelector('[role="dialog"][aria-modal="true"]') !== null;
      if (mod && e.key === ',') {
        e.preventDefault();
        // One of the two at a time: a dialog opened over the other would sit beneath it.
        useSkills.getState().show(null);
        useUi.getState().openSettings(true);
      } else if (mod && (e.key === 'n' || e.key === 'N') && !e.shiftKey && !modal) {
        e.preventDefault();
        void newSession().then(() => window.dispatchEvent(new Event('deft:focus-composer')));
      } else if (mod && e.shiftKey && (e.key === 'K' || e.key === 'k')) {
        e.preventDefault();
        useUi.getState().openSettings(false);
        useSkills.getState().show({ kind: 'gallery' });
      } else if (mod && e.key === 'l' && !modal) {
        e.preventDefault();
        window.dispatchEvent(new Event('deft:focus-composer'));
      } else if (mod && (e.key === '/' || e.key === '?')) {
        e.preventDefault();
        useUi.getState().setShortcutsOpen(!useUi.getState().shortcutsOpen);
      } else if (mod && (e.key === 'b' || e.key === 'B') && !e.shiftKey && !modal) {
        e.preventDefault();
        toggleSidebar();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

function Workspace() {
  useShortcuts();
  const settingsOpen = useUi((s) => s.settingsOpen);
  const shortcutsOpen = useUi((s) => s.shortcutsOpen);
  const tasksOpen = useTasks((s) => s.panelOpen);
  const sidebar = useSidebarPlacement();
  const plan = usePendingPlan();
  const hiddenPlan = useUi((s) => s.hiddenPlan);
  return (
    <div className={`app${sidebar === 'docked' ? '' : ' app-no-sidebar'}${tasksOpen ? ' app-tasks-open' : ''}`}>
      {sidebar === 'docked' ? <Sidebar /> : null}
      {sidebar === 'drawer' ? <SidebarDrawer /> : null}
      <main className="main">
        <Header sidebar={sidebar} />
        <Banners />
        <RuleProblems />
        {plan && hiddenPlan !== plan.requestId ? <PlanReview key={plan.requestId} approval={plan} /> : <Conversation />}
        <Dock />
        <Composer />
      </main>
      <TasksPanel />
      <FileViewer />
      <QuestionDialog />
      {settingsOpen ? <SettingsDialog /> : null}
      {shortcutsOpen ? <ShortcutsSheet /> : null}
      <SkillsLayer />
      <CheckpointLayer />
      <WorktreesLayer />
      <RemoteLayer />
    </div>
  );
}

export function App() {
  useEffect(() => {
    const unbind = bindStores({
      onReconnect: () => {
        void resync();
        void loadPreferences();
        void refreshSkills();
      },
      onSkillsChanged: () => void refreshSkills(),
    });
    void loadInitial();
    void loadPreferences();
    // A request waiting in another core: a click on its notification switches there and opens its session.
    const unwatch = watchAttention((request) => switchToWorktree(request.worktree?.name ?? null, request.sessionId));
    // Switched to another core in place (the web host): the stores start again, filled from it.
    const unfollow = followHostView((sessionId) => {
      void loadInitial(sessionId);
      void refreshSkills();
    });
    const stopWarmup = warmWindowWhenIdle();
    return () => {
      unbind();
      unwatch();
      unfollow();
      stopWarmup();
    };
  }, []);
  useAppliedTheme();
  useWindowTitle();
  const settings = useSettings((s) => s.settings);
  const banner = useUi((s) => s.banner);
  if (!settings) {
    return (
      <div className="splash" role="status">
        {banner ? banner.message : 'Starting Deft…'}
      </div>
    );
  }
  if (!settings.provider) return <FirstRun />;
  return <Workspace />;
}
