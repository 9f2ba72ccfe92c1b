import { useEffect } from 'react';
import { refreshTasks } from '../../actions/tasks';
import { useSessions } from '../../stores/sessions';
import { useTasks } from '../../stores/tasks';
import { useUi } from '../../stores/ui';

/**
 * Keep the tasks store on the open session: emptied when the session changes or the connection comes back, and
 * reloaded once the session's transcript is shown (painted). Not before: asking for the tasks of a session the core has not
 * loaded loads it (its log read whole), and the core shows a window a long session's tail without that (tail-view.ts).
 */
export function useTasksSync(): void {
  const sessionId = useSessions((s) => s.currentId);
  const shown = useSessions((s) => !s.loading);
  const connection = useUi((s) => s.connection);
  useEffect(() => {
    if (!sessionId) {
      useTasks.getState().load(null, { tasks: [], cron: [], commands: [] });
      return;
    }
    if (connection === 'closed') return;
    useTasks.getState().load(sessionId, { tasks: [], cron: [], commands: [] });
  }, [sessionId, connection]);
  useEffect(() => {
    if (!sessionId || !shown || connection === 'closed') return;
    let asked = false;
    const ask = () => {
      if (asked) return;
      asked = true;
      void refreshTasks(sessionId);
    };
    // Once the frame that shows the transcript is painted (rAF pauses in a hidden window: the timeout asks there).
    const timer = setTimeout(ask, 250);
    const frame = requestAnimationFrame(() => setTimeout(ask, 0));
    return () => {
      asked = true;
      clearTimeout(timer);
      cancelAnimationFrame(frame);
    };
  }, [sessionId, shown, connection]);
}
