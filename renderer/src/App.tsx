import { useEffect } from 'react';
import { loadInitial, newSession, resync } from './actions/sessions';
import { refreshSkills } from './actions/skills';
// Sub-agent and swarm cards (they render tool cards of their own, so they register themselves).
import './features/agents/register';
import { Composer } from './features/composer/Composer';
import { Dock } from './features/dock/Dock';
import { CheckpointLayer } from './features/checkpoints/CheckpointLayer';
import { Banners } from './features/conversation/Banners';
import { Conversation } from './features/conversation/Conversation';
import { Header } from './features/conversation/Header';
import { FirstRun } from './features/onboarding/FirstRun';
import { RuleProblems } from './features/permissions/RuleProblems';
import { QuestionDialog } from './features/questions/QuestionDialog';
import { Sidebar } from './features/sessions/Sidebar';
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
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

function Workspace() {
  useShortcuts();
  const settingsOpen = useUi((s) => s.settingsOpen);
  const tasksOpen = useTasks((s) => s.panelOpen);
  return (
    <div className={`app${tasksOpen ? ' app-tasks-open' : ''}`}>
      <Sidebar />
      <main className="main">
        <Header />
        <Banners />
        <RuleProblems />
        <Conversation />
        <Dock />
        <Composer />
      </main>
      <TasksPanel />
      <QuestionDialog />
      {settingsOpen ? <SettingsDialog /> : null}
      <SkillsLayer />
      <CheckpointLayer />
    </div>
  );
}

export function App() {
  useEffect(() => {
    const unbind = bindStores({
      onReconnect: () => {
        void resync();
        void refreshSkills();
      },
      onSkillsChanged: () => void refreshSkills(),
    });
    void loadInitial();
    return unbind;
  }, []);
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
