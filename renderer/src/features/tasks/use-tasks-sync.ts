import { useEffect } from 'react';
import { refreshTasks } from '../../actions/tasks';
import { useSessions } from '../../stores/sessions';
import { useTasks } from '../../stores/tasks';
import { useUi } from '../../stores/ui';

/** Keep the tasks store on the open session: reload when the session changes or the connection comes back. */
export function useTasksSync(): void {
  const sessionId = useSessions((s) => s.currentId);
  const connection = useUi((s) => s.connection);
  useEffect(() => {
    if (!sessionId) {
      useTasks.getState().load(null, { tasks: [], cron: [], commands: [] });
      return;
    }
    if (connection === 'closed') return;
    useTasks.getState().load(sessionId, { tasks: [], cron: [], commands: [] });
    void refreshTasks(sessionId);
  }, [sessionId, connection]);
}
