import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SessionSummary, WorktreeChanges, WorktreeInfo } from '#protocol';
import { refreshWorktreeLive } from '../../actions/worktrees';
import { core } from '../../testing/core';
import { useSessions } from '../../stores/sessions';
import { useWorktrees } from '../../stores/worktrees';
import { ChangesButton, ChangesView } from './ChangesView';
import { WorktreeSessions } from './SidebarWorktrees';
import { WorktreesLayer } from './WorktreesView';

// A session's Changes view (issue 30): its worktree's diff against the base, and Merge / Apply / Create branch
// only / Discard from the session itself.

const login: WorktreeInfo = {
  name: 'login',
  branch: 'deft/login',
  baseBranch: 'main',
  baseCommit: '0123456789abcdef',
  repoRoot: '/repo',
  path: '/home/u/.deft/worktrees/repo-1/login',
  createdAt: 1,
  state: 'ok',
  changedFiles: ['src/login.ts', 'src/new.ts'],
  ahead: 1,
  behind: 0,
  dirty: true,
  sessions: [{ id: 's1', title: 'Fix the login redirect', updatedAt: 1, live: 'idle' }],
  live: 'idle',
};

const HEAD = 'a'.repeat(40);
const TREE = 'b'.repeat(40);
const changes: WorktreeChanges = {
  base: 'abc',
  head: HEAD,
  tree: TREE,
  more: 0,
  files: [
    {
      path: 'src/login.ts',
      status: 'modified',
      added: 1,
      removed: 1,
      binary: false,
      hunks: [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [' const a = 1;', '-redirect(home);', '+redirect(back);'] }],
    },
    {
      path: 'src/new.ts',
      status: 'added',
      added: 1,
      removed: 0,
      binary: false,
      hunks: [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 1, lines: ['+export const fresh = true;'] }],
    },
    { path: 'logo.png', status: 'added', added: null, removed: null, binary: true, hunks: [] },
  ],
};

const session = (worktree?: SessionSummary['worktree']) =>
  ({ id: 's1', title: 'Fix the login redirect', createdAt: 1, updatedAt: 1, running: false, ...(worktree ? { worktree } : {}) }) as SessionSummary;

afterEach(() => {
  useWorktrees.setState({ worktrees: [], repoRoot: null, reason: null, loaded: false, dialog: null, notice: null, changesOf: null });
  useSessions.setState({ sessions: [], currentId: null });
});

const inLogin = session({ name: 'login', branch: 'deft/login', baseBranch: 'main', repoRoot: '/repo' });

/** The view as the worktree's own window shows it (its session listed here), or the main checkout's (`here: false`). */
async function openView(reply: () => WorktreeChanges = () => changes, here = true) {
  core.reply('listWorktrees', () => ({ repoRoot: '/repo', worktrees: [login] }));
  core.reply('worktreeChanges', reply);
  act(() => {
    useWorktrees.getState().setList({ repoRoot: '/repo', worktrees: [login] });
    useSessions.setState({ sessions: here ? [inLogin] : [], currentId: null });
  });
  render(<ChangesView name="login" onClose={() => {}} />);
  return screen.findByRole('dialog', { name: 'Changes on deft/login' });
}

describe('the session header’s Changes button', () => {
  it('is there only for a session in a worktree, with its changed-file count, and opens its Changes view', async () => {
    act(() => useSessions.setState({ sessions: [session()], currentId: 's1' }));
    const { rerender } = render(<ChangesButton />);
    expect(screen.queryByRole('button', { name: /^Changes/ })).toBeNull();
    act(() => {
      useSessions.setState({ sessions: [session({ name: 'login', branch: 'deft/login', baseBranch: 'main', repoRoot: '/repo' })], currentId: 's1' });
      useWorktrees.getState().setList({ repoRoot: '/repo', worktrees: [login] });
    });
    core.reply('worktreeChanges', () => changes);
    core.reply('listWorktrees', () => ({ repoRoot: '/repo', worktrees: [login] }));
    rerender(
      <>
        <ChangesButton />
        <WorktreesLayer />
      </>,
    );
    const button = screen.getByRole('button', { name: 'Changes on deft/login (2 files)' });
    button.focus();
    await userEvent.keyboard('{Enter}');
    expect(useWorktrees.getState().changesOf).toBe('login');
    expect(await screen.findByRole('dialog', { name: 'Changes on deft/login' })).toBeTruthy();
    expect(core.inputsOf('worktreeChanges')).toEqual([{ name: 'login' }]);
  });
});

describe('the Changes view', () => {
  it('lists the files against the base and shows each one’s diff; J and K move between them', async () => {
    const view = await openView();
    const files = within(view).getByRole('navigation', { name: 'Changed files' });
    await waitFor(() => expect(within(files).getAllByRole('button')).toHaveLength(3));
    expect(files.textContent).toContain('3 files');
    expect(within(view).getByRole('region', { name: 'Changes to src/login.ts' }).textContent).toContain('redirect(back);');
    await userEvent.keyboard('j');
    expect(within(view).getByRole('region', { name: 'Changes to src/new.ts' }).textContent).toContain('export const fresh = true;');
    expect(document.activeElement?.getAttribute('data-path')).toBe('src/new.ts');
    await userEvent.keyboard('j');
    expect(within(view).getByRole('region', { name: 'Changes to logo.png' }).textContent).toContain('A binary file');
    await userEvent.keyboard('k');
    expect(within(view).getByRole('region', { name: 'Changes to src/new.ts' })).toBeTruthy();
    // The worktree's actions, without Open: this window is the worktree's.
    for (const name of ['Merge…', 'Apply to working tree', 'Create branch only…', 'Discard…']) expect(within(view).getByRole('button', { name })).toBeTruthy();
    expect(within(view).queryByRole('button', { name: 'Open' })).toBeNull();
  });

  it('merges with the drafted, edited message, then shows that nothing is left to merge', async () => {
    core.reply('draftWorktreeMessage', () => ({ message: 'Send the user back after login', drafted: true }));
    core.reply('mergeWorktree', () => ({ status: 'merged', commit: 'c0ffee', baseBranch: 'main', files: ['src/login.ts', 'src/new.ts'], squashed: true }));
    let merged = false;
    const view = await openView(() => (merged ? { base: 'c0ffee', head: HEAD, tree: TREE, files: [], more: 0 } : changes));
    await userEvent.click(within(view).getByRole('button', { name: 'Merge…' }));
    const form = within(view).getByRole('form', { name: 'Merge deft/login' });
    const box = within(form).getByRole<HTMLTextAreaElement>('textbox', { name: 'Commit message' });
    await waitFor(() => expect(box.value).toBe('Send the user back after login'));
    await userEvent.type(box, '.');
    await userEvent.click(within(form).getByRole('radio', { name: 'Squash into one commit' }));
    merged = true;
    await userEvent.click(within(form).getByRole('button', { name: 'Squash and merge' }));
    // What was shown is what is merged: the core refuses when the worktree moved since.
    expect(core.inputsOf('mergeWorktree')).toEqual([
      { name: 'login', squash: true, message: 'Send the user back after login.', expect: { head: HEAD, tree: TREE } },
    ]);
    expect((await within(view).findByRole('status')).textContent).toContain('Squashed deft/login onto main');
    expect(await within(view).findByText('No changes against the base: nothing to merge.')).toBeTruthy();
  });

  it('shows a conflict file by file with its two ways out: in that session, or by hand', async () => {
    core.reply('draftWorktreeMessage', () => ({ message: 'm', drafted: true }));
    core.reply('mergeWorktree', () => ({ status: 'conflict', baseBranch: 'main', files: ['src/login.ts', 'src/new.ts'] }));
    core.reply('handWorktreeConflict', () => ({
      status: 'conflict',
      files: ['src/login.ts'],
      prompt: 'Merging conflicts…',
      path: login.path,
      branch: 'deft/login',
      baseBranch: 'main',
      sent: { sessionId: 's1', title: 'Fix the login redirect', created: false },
    }));
    const view = await openView();
    await userEvent.click(within(view).getByRole('button', { name: 'Merge…' }));
    await userEvent.click(within(view).getByRole('button', { name: 'Merge' }));
    const alert = await within(view).findByRole('alert');
    expect(
      within(alert)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['src/login.ts', 'src/new.ts']);
    await userEvent.click(within(within(view).getByRole('group', { name: 'Resolve the conflict' })).getByRole('button', { name: 'By hand' }));
    expect(view.textContent).toContain(`in the worktree at ${login.path}, run git merge main`);
    await userEvent.click(within(view).getByRole('button', { name: 'Merge' }));
    const choice = await within(view).findByRole('group', { name: 'Resolve the conflict' });
    await userEvent.click(within(choice).getByRole('button', { name: 'Resolve in that session' }));
    expect(core.inputsOf('handWorktreeConflict')).toEqual([{ name: 'login' }]);
    await waitFor(() => expect(view.textContent).toContain('Sent to its session “Fix the login redirect”'));
  });

  it('applies to the working tree, and discarding says the window stays on the worktree’s folder', async () => {
    core.reply('applyWorktree', () => ({ status: 'applied', files: ['src/login.ts'] }));
    core.reply('discardWorktree', () => ({ removed: login.path, branchDeleted: false }));
    const view = await openView();
    await userEvent.click(within(view).getByRole('button', { name: 'Apply to working tree' }));
    expect(core.inputsOf('applyWorktree')).toEqual([{ name: 'login' }]);
    await userEvent.click(within(view).getByRole('button', { name: 'Discard…' }));
    await userEvent.click(within(view).getByRole('button', { name: 'Discard worktree' }));
    expect(core.inputsOf('discardWorktree')).toEqual([{ name: 'login', deleteBranch: false }]);
    expect((await within(view).findByRole('status')).textContent).toContain('Discarded deft/login; its branch is kept. This window stays on');
  });

  it('opens from the main checkout’s sidebar row: Open is offered, and discarding leaves this window where it is', async () => {
    core.reply('listWorktrees', () => ({ repoRoot: '/repo', worktrees: [login] }));
    core.reply('worktreeChanges', () => changes);
    core.reply('discardWorktree', () => ({ removed: login.path, branchDeleted: true }));
    act(() => useWorktrees.getState().setList({ repoRoot: '/repo', worktrees: [login] }));
    render(
      <>
        <ul>
          <WorktreeSessions />
        </ul>
        <WorktreesLayer />
      </>,
    );
    await userEvent.click(screen.getByRole('button', { name: 'Changes on deft/login' }));
    const view = await screen.findByRole('dialog', { name: 'Changes on deft/login' });
    expect(core.inputsOf('worktreeChanges')).toEqual([{ name: 'login' }]);
    expect(within(view).getByText(/“Fix the login redirect” works on/)).toBeTruthy();
    await waitFor(() => expect(within(view).getAllByRole('button', { name: /src\/|logo/ })).toHaveLength(3));
    expect(within(view).getByRole('button', { name: 'Open' })).toBeTruthy();
    await userEvent.click(within(view).getByRole('button', { name: 'Discard…' }));
    await userEvent.click(within(view).getByRole('checkbox'));
    await userEvent.click(within(view).getByRole('button', { name: 'Discard worktree' }));
    expect(core.inputsOf('discardWorktree')).toEqual([{ name: 'login', deleteBranch: true }]);
    const said = (await within(view).findByRole('status')).textContent;
    expect(said).toContain('Discarded deft/login and deleted its branch.');
    expect(said).not.toContain('This window stays');
  });

  it('says why when the diff cannot be read', async () => {
    const view = await openView(() => {
      throw new Error('no worktree named "login"');
    });
    expect((await within(view).findByRole('alert')).textContent).toContain('no worktree named');
  });
});

describe('the sidebar’s poll', () => {
  it('reads only the live marks, and the whole list (git) only when a session there started, ended or waits', async () => {
    act(() => useWorktrees.getState().setList({ repoRoot: '/repo', worktrees: [login] }));
    const list = vi.fn(() => ({ repoRoot: '/repo', worktrees: [login] }));
    core.reply('listWorktrees', list);
    core.reply('worktreesLive', () => ({ worktrees: [{ name: 'login', sessions: login.sessions, live: 'idle' as const }] }));
    await refreshWorktreeLive();
    expect(list).not.toHaveBeenCalled();
    core.reply('worktreesLive', () => ({
      worktrees: [{ name: 'login', sessions: [{ ...login.sessions[0]!, live: 'running' as const }], live: 'running' as const }],
    }));
    await refreshWorktreeLive();
    expect(list).toHaveBeenCalledTimes(1);
  });
});
