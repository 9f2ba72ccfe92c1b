import { useEffect } from 'react';
import type { ElsewhereRequest, SessionSummary, WorktreeInfo, WorktreeLive } from '#protocol';
import { openWorktree, refreshWorktreeLive, refreshWorktrees, switchToWorktree } from '../../actions/worktrees';
import { useElsewhere, waitingIn, waitingWords } from '../../stores/elsewhere';
import { useSessions } from '../../stores/sessions';
import { useWorktrees, worktreeNamed } from '../../stores/worktrees';
import { relativeTime } from '../sessions/relative-time';
import './worktrees.css';

/** How often the other worktrees' sessions are looked at again while the window is visible (they run in other windows). */
export const WORKTREE_POLL_MS = 5000;

/**
 * The worktrees listed again whenever a session here starts or ends a turn (their changed files move then), when the
 * window is shown or focused again (files may have changed meanwhile), and when the poll sees a session there start,
 * end or wait: every few seconds while there are worktrees and the window is visible, only their sessions' live
 * marks are read (no git) — their sessions run (or wait for you) in other windows.
 */
export function useWorktreeRefresh(sessions: readonly SessionSummary[]): void {
  const running = sessions.filter((s) => s.running).length;
  const loaded = useWorktrees((s) => s.loaded);
  const any = useWorktrees((s) => s.worktrees.length > 0);
  useEffect(() => {
    if (loaded) void refreshWorktrees();
  }, [running, loaded]);
  useEffect(() => {
    if (!any) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void refreshWorktreeLive();
    }, WORKTREE_POLL_MS);
    // Back in view or in focus: the whole list at once, not at the next tick.
    const shown = () => {
      if (document.visibilityState === 'visible') void refreshWorktrees();
    };
    document.addEventListener('visibilitychange', shown);
    window.addEventListener('focus', shown);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', shown);
      window.removeEventListener('focus', shown);
    };
  }, [any]);
}

/** A worktree's sessions now: a spinner (running) or "waiting for you", in words for screen readers too. */
export function WorktreeLiveMark({ live }: { live: WorktreeLive }) {
  if (live === 'waiting') return <span className="session-waiting worktree-live">· waiting for you</span>;
  if (live !== 'running') return null;
  return (
    <span className="worktree-live">
      <span className="spinner" style={{ width: 10, height: 10 }} aria-hidden="true" />
      <span className="visually-hidden">running</span>
    </span>
  );
}

const files = (n: number) => `${n} changed ${n === 1 ? 'file' : 'files'}`;

/** How many requests wait in a core this window does not show: a count, and what it is in words for screen readers. */
export function WaitingBadge({ requests }: { requests: readonly ElsewhereRequest[] }) {
  if (!requests.length) return null;
  return (
    <span className="waiting-badge" title={`${waitingWords(requests)} waiting for you there`}>
      <span aria-hidden="true">{requests.length}</span>
      <span className="visually-hidden">{waitingWords(requests)} waiting for you</span>
    </span>
  );
}

const KIND: Record<ElsewhereRequest['kind'], string> = { approval: 'Approval', plan: 'Plan review', question: 'Question', review: 'Change review' };

/**
 * What waits for you in the other checkouts (the host runs each one's core side by side): one line per request, a
 * click switches this window there (in place: nothing stops) and opens the session that asks.
 */
export function ElsewhereRequests() {
  const requests = useElsewhere((s) => s.requests);
  const total = useElsewhere((s) => s.total);
  if (!requests.length) return null;
  const shown = requests.slice(0, 3);
  return (
    <section className="elsewhere" aria-label="Waiting for you in other checkouts">
      <ul className="elsewhere-list">
        {shown.map((r) => (
          <li key={`${r.worktree?.name ?? ''}/${r.requestId}`}>
            <button
              type="button"
              className="elsewhere-request"
              title={`${KIND[r.kind]} from ${r.title}, in ${r.worktree ? r.worktree.branch : 'the main checkout'}: ${r.summary} — go there (this checkout keeps running)`}
              onClick={() => switchToWorktree(r.worktree?.name ?? null, r.sessionId)}
            >
              <span className="elsewhere-what">
                {KIND[r.kind]} waiting in <span className="branch-chip">{r.worktree ? r.worktree.branch : 'main checkout'}</span>
              </span>
              <span className="elsewhere-summary">
                {r.title}: {r.summary}
              </span>
              <span className="elsewhere-go">Go there →</span>
            </button>
          </li>
        ))}
      </ul>
      {total > shown.length ? <p className="elsewhere-more">and {total - shown.length} more</p> : null}
    </section>
  );
}

/** A session row's worktree: its branch, and how many files it changed. */
export function WorktreeChip({ worktree }: { worktree: NonNullable<SessionSummary['worktree']> }) {
  const listed = useWorktrees((s) => worktreeNamed(s.worktrees, worktree.name));
  return (
    <span className="session-worktree">
      <span className="branch-chip" title={`Worktree on ${worktree.branch}, from ${worktree.baseBranch ?? 'a commit'}`}>
        {worktree.branch}
      </span>
      {listed ? <span className="session-worktree-files">{files(listed.changedFiles.length)}</span> : null}
    </span>
  );
}

/**
 * The repository's other worktrees and the sessions that ran in each, under the sessions of this folder: a session
 * there runs in its worktree's own core, so a click switches this window to it (the web host: the core here keeps
 * running) or opens its window (desktop), or says where it is. *Changes* opens the worktree's
 * Changes view in this window (its diff against its base, Merge, Apply, Create branch only, Discard).
 */
export function WorktreeSessions() {
  const worktrees = useWorktrees((s) => s.worktrees);
  const here = useSessions((s) => s.sessions);
  const viewing = useWorktrees((s) => s.viewing);
  const requests = useElsewhere((s) => s.requests);
  const ids = new Set(here.map((s) => s.id));
  const elsewhere = worktrees.filter((w) => w.state === 'ok' && w.name !== viewing?.name && !w.sessions.some((s) => ids.has(s.id)));
  if (!elsewhere.length) return null;
  const open = async (w: WorktreeInfo) => {
    // A request waits there: its session is the one opened once there.
    const asking = waitingIn(requests, w.name)[0];
    const r = await openWorktree(w.name, asking?.sessionId);
    if (!r.ok) useWorktrees.getState().tell(r.error);
    else if (!r.value.opened)
      useWorktrees
        .getState()
        .tell(
          w.conflictWaiting
            ? `This window cannot open another folder: open ${r.value.path} in the desktop app (its session takes the conflict there), or run deft worktrees resolve ${w.name} to have it resolved headless.`
            : `This window cannot open another folder: open ${r.value.path} in the desktop app, or run deft there.`,
        );
  };
  return (
    <li className="worktree-group">
      <span className="worktree-group-title" id="worktree-group-title">
        In worktrees
      </span>
      <ul className="worktree-group-list" aria-labelledby="worktree-group-title">
        {elsewhere.map((w) => {
          // A request the host says waits there shows at once (the poll of the sessions' marks follows).
          const asking = waitingIn(requests, w.name);
          const live: WorktreeLive = asking.length ? 'waiting' : w.live;
          return (
            <li key={w.name} className="session-row worktree-row">
              <button
                type="button"
                className="session-open worktree-open"
                title={
                  w.conflictWaiting
                    ? `Open ${w.branch}: its session takes the conflict handed to it and resolves it there`
                    : `Open ${w.branch}: its sessions run there, and the ones here keep running`
                }
                onClick={() => void open(w)}
              >
                <span className="session-title">
                  <WaitingBadge requests={asking} />
                  {w.sessions[0]?.title ?? 'No session yet'}
                </span>
                <span className="session-worktree">
                  <span className="branch-chip">{w.branch}</span>
                  <span className="session-worktree-files">{files(w.changedFiles.length)}</span>
                </span>
                {w.sessions[0] ? (
                  <span className="session-meta">
                    {live === 'running' ? <WorktreeLiveMark live="running" /> : null}
                    {relativeTime(w.sessions[0].updatedAt)}
                    {w.sessions.length > 1 ? ` · ${w.sessions.length} sessions` : ''}
                    {live === 'waiting' ? <WorktreeLiveMark live="waiting" /> : null}
                    {w.conflictWaiting && live !== 'running' ? <span className="session-waiting worktree-live">· conflict to resolve</span> : null}
                  </span>
                ) : null}
              </button>
              <button
                type="button"
                className="worktree-row-changes"
                aria-haspopup="dialog"
                aria-label={`Changes on ${w.branch}`}
                title={`Changes on ${w.branch}: diff against ${w.baseBranch ?? 'its base'}, merge, apply or discard, here`}
                onClick={() => useWorktrees.getState().showChanges(w.name)}
              >
                Changes
              </button>
            </li>
          );
        })}
      </ul>
    </li>
  );
}

/** A main checkout's session, in the bar of a window on a worktree: running, waiting for you, or done since. */
function MainSessionMark({ live }: { live: 'running' | 'waiting' | 'done' }) {
  if (live === 'running')
    return (
      <span className="main-session-running">
        <span className="spinner" style={{ width: 10, height: 10 }} aria-hidden="true" />
        running
      </span>
    );
  if (live === 'waiting') return <span className="session-waiting">waiting for you</span>;
  return <span className="main-session-done">done</span>;
}

/**
 * Where this window is, when it shows a worktree (the web host): its branch, and the way back to the main checkout —
 * whose sessions keep running meanwhile, as the worktree's do once you are back. The main checkout's sessions that
 * run, wait for you, or finished since are listed one by one; a click goes back and opens that one.
 */
export function WorktreeViewBar() {
  const viewing = useWorktrees((s) => s.viewing);
  const main = useWorktrees((s) => s.mainLive);
  const sessions = useWorktrees((s) => s.mainSessions);
  const requests = useElsewhere((s) => s.requests);
  if (!viewing) return null;
  const asking = waitingIn(requests, null);
  return (
    <div className="worktree-view" role="group" aria-label="Where this window is">
      <div className="worktree-view-row">
        <button
          type="button"
          className="button button-ghost worktree-view-back"
          title="Back to the main checkout: the sessions here keep running"
          onClick={() => switchToWorktree(null, asking[0]?.sessionId)}
        >
          ← Main checkout
          {main !== 'idle' && !sessions.length ? <WorktreeLiveMark live={main} /> : null}
          <WaitingBadge requests={asking} />
        </button>
        <span className="worktree-view-here">
          <span className="visually-hidden">This window shows the worktree </span>
          <span className="branch-chip">{viewing.branch}</span>
        </span>
      </div>
      {sessions.length ? (
        <ul className="main-sessions" aria-label="The main checkout's sessions">
          {sessions.map((s) => (
            <li key={s.id}>
              <button type="button" className="main-session" title={`${s.title} (main checkout) — go back to it`} onClick={() => switchToWorktree(null, s.id)}>
                <span className="main-session-title">{s.title}</span>
                <MainSessionMark live={s.live} />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** What became of a worktree (a deleted session's, or one that could not be opened here), until dismissed. */
export function WorktreeNotice() {
  const notice = useWorktrees((s) => s.notice);
  if (!notice) return null;
  return (
    <div className="worktree-notice" role="status">
      <span>{notice}</span>
      <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => useWorktrees.getState().tell(null)}>
        ×
      </button>
    </div>
  );
}
