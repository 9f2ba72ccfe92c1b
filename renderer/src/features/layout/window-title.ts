import { useEffect } from 'react';
import { useApprovals, waitingCount } from '../../stores/approvals';
import { useSettings } from '../../stores/settings';
import { useTranscript } from '../../stores/transcript';

/** The page (and window) title says when Deft waits for you, or works, so it shows in the taskbar and tab. */
export function useWindowTitle(): void {
  const waiting = useApprovals((s) => Object.values(s.bySession).reduce((n, r) => n + waitingCount(r), 0));
  const running = useTranscript((s) => s.runningTurn !== null);
  const folder = useSettings((s) => s.workspace?.name);
  useEffect(() => {
    const base = folder ? `Deft — ${folder}` : 'Deft';
    document.title = waiting ? `(${waiting}) Waiting for you — ${base}` : running ? `Working… — ${base}` : base;
  }, [waiting, running, folder]);
}
