import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { WorktreeInfo } from '#protocol';
import { DeftError } from '#protocol/helpers/bridge';
import { deleteSession } from '../../actions/sessions';
import { refreshWorktrees } from '../../actions/worktrees';
import { useUi } from '../../stores/ui';
import { core } from '../../testing/core';
import { useWorktrees } from '../../stores/worktrees';
import { NewWorktreeDialog } from './NewWorktreeDialog';
import { WorktreeChip, WorktreeNotice, WorktreeSessions, WorktreeViewBar } from './SidebarWorktrees';
import { WorktreesLayer, WorktreesView } from './WorktreesView';

// The window's worktrees (issue 30): what each control sends to the core (names only, never a path) and how
// each outcome is told.

const login: WorktreeInfo = {
  name: 'login',
  branch: 'deft/login',
  baseBranch: 'main',
  baseCommit: '0123456789abcdef',
  repoRoot: '/repo',
  path: '/home/u/.deft/worktrees/repo-1/login',
  createdAt: 1,
  state: 'ok',
  changedFiles: ['src/login.ts', 'src/session.ts'],
  ahead: 1,
  behind: 0,
  dirty: true,
  sessions: [{ id: 's1', title: 'Fix the login redirect', updatedAt: Date.now(), live: 'idle' }],
  live: 'idle',
};

// Which core the window shows (the web host's, switched by name): what the actions ask of it is recorded.
const switched = vi.hoisted(() => [] as Array<string | null>);
vi.mock('../../bridge', async (original) => ({
  ...(await original<Record<string, unknown>>()),
  hostView: { current: () => null, subscribe: () => () => {}, switchTo: (name: string | null) => void switched.push(name) },
}));

afterEach(() => {
  useWorktrees.setState({
    worktrees: [],
    repoRoot: null,
    reason: null,
    loaded: false,
    dialog: null,
    notice: null,
    changesOf: null,
    viewing: null,
    mainLive: 'idle',
  });
  switched.length = 0;
});

describe('new session in a worktree', () => {
  it('creates it from the name and base given, opens it, and says what was copied and skipped', async () => {
    core.reply('createWorktree', () => ({
      worktree: login,
      copied: ['.env.example'],
      skipped: [{ path: '.env', reason: 'a secret' }],
      notes: ['the repository has submodules: they are not checked out in the worktree.'],
    }));
    core.reply('openWorktree', () => ({ opened: false, path: login.path }));
    core.reply('listWorktrees', () => ({ repoRoot: '/repo', worktrees: [login] }));
    render(<NewWorktreeDialog onClose={() => {}} />);
    await userEvent.type(screen.getByRole('textbox', { name: /^Name/ }), 'login');
    await userEvent.type(screen.getByRole('textbox', { name: /^Start from/ }), 'develop');
    await userEvent.click(screen.getByRole('button', { name: 'Create worktree' }));
    const told = await screen.findByRole('status');
    expect(core.inputsOf('createWorktree')).toEqual([{ name: 'login', base: 'develop' }]);
    expect(core.inputsOf('openWorktree')).toEqual([{ name: 'login' }]);
    expect(told.textContent).toContain('Created deft/login from main');
    expect(told.textContent).toContain('This window stays on');
    expect(told.textContent).toContain(login.path);
    expect(told.textContent).toContain('Copied in: .env.example');
    expect(told.textContent).toContain('.env — a secret');
    expect(told.textContent).toContain('Note: the repository has submodules');
    expect(screen.getByRole('button', { name: 'Done' })).toBeTruthy();
  });

  it('sends no name or base when left empty, and shows a refusal in the dialog', async () => {
    core.reply('createWorktree', () => {
      throw new Error('not inside a git repository');
    });
    render(<NewWorktreeDialog onClose={() => {}} />);
    await userEvent.click(screen.getByRole('button', { name: 'Create worktree' }));
    expect((await screen.findByRole('alert')).textContent).toContain('not inside a git repository');
    expect(core.inputsOf('createWorktree')).toEqual([{}]);
    expect(core.inputsOf('openWorktree')).toEqual([]);
  });
});

describe('the Worktrees view', () => {
  const open = async () => {
    core.reply('listWorktrees', () => ({ repoRoot: '/repo', worktrees: [login] }));
    render(<WorktreesView onClose={() => {}} onNew={() => {}} />);
    return screen.findByRole('listitem', { name: 'deft/login' });
  };

  it('lists each worktree with its state and sessions', async () => {
    const card = await open();
    expect(card.textContent).toContain('deft/login');
    expect(card.textContent).toContain('from main');
    expect(card.textContent).toContain('2 changed files · 1 ahead · uncommitted changes · 1 session: Fix the login redirect');
  });

  it('merges with a message the model drafted, editable; a conflict names the files and says nothing was changed', async () => {
    core.reply('draftWorktreeMessage', () => ({ message: 'Fix the login redirect\n\nKeep the return URL.', drafted: true }));
    core.reply('mergeWorktree', () => ({ status: 'conflict', baseBranch: 'main', files: ['src/login.ts'] }));
    const card = await open();
    await userEvent.click(within(card).getByRole('button', { name: 'Merge…' }));
    const message = within(card).getByRole<HTMLTextAreaElement>('textbox', { name: 'Commit message' });
    expect(await within(card).findByText(/Drafted by the model/)).toBeTruthy();
    expect(message.value).toBe('Fix the login redirect\n\nKeep the return URL.');
    expect(core.inputsOf('draftWorktreeMessage')).toEqual([{ name: 'login', squash: false }]);
    await userEvent.type(message, ' Edited.');
    await userEvent.click(within(card).getByRole('radio', { name: /Squash/ }));
    await userEvent.click(within(card).getByRole('button', { name: 'Squash and merge' }));
    expect(core.inputsOf('mergeWorktree')).toEqual([{ name: 'login', squash: true, message: 'Fix the login redirect\n\nKeep the return URL. Edited.' }]);
    const alert = await within(card).findByRole('alert');
    expect(alert.textContent).toContain('would conflict in 1 file. Nothing was changed');
    expect(within(alert).getAllByRole('listitem')[0]!.textContent).toBe('src/login.ts');
  });

  it('a conflict can be handed to the worktree’s session (its prompt shown) or resolved by hand', async () => {
    core.reply('draftWorktreeMessage', () => ({ message: 'm', drafted: true }));
    core.reply('mergeWorktree', () => ({ status: 'conflict', baseBranch: 'main', files: ['src/login.ts'] }));
    core.reply('handWorktreeConflict', () => ({
      status: 'conflict',
      files: ['src/login.ts'],
      prompt: 'Merging this worktree’s branch deft/login onto main conflicts…',
      path: login.path,
      branch: 'deft/login',
      baseBranch: 'main',
    }));
    core.reply('openWorktree', () => ({ opened: false, path: login.path }));
    const card = await open();
    await userEvent.click(within(card).getByRole('button', { name: 'Merge…' }));
    await userEvent.click(within(card).getByRole('button', { name: 'Merge' }));
    const choice = await within(card).findByRole('group', { name: 'Resolve the conflict' });
    await userEvent.click(within(choice).getByRole('button', { name: 'By hand' }));
    expect(card.textContent).toContain(`in the worktree at ${login.path}, run git merge main`);
    expect(core.inputsOf('handWorktreeConflict')).toEqual([]);
    await userEvent.click(within(card).getByRole('button', { name: 'Merge' }));
    await userEvent.click(
      within(await within(card).findByRole('group', { name: 'Resolve the conflict' })).getByRole('button', { name: 'Resolve in that session' }),
    );
    expect(core.inputsOf('handWorktreeConflict')).toEqual([{ name: 'login' }]);
    const prompt = await within(card).findByRole('textbox', { name: 'Prompt for the session' });
    expect(prompt.getAttribute('readonly')).not.toBeNull();
    expect((prompt as HTMLTextAreaElement).value).toContain('conflicts');
    expect(card.textContent).toContain('the main checkout is untouched');
  });

  it('a conflict sent to the worktree’s session says to which one, and shows no prompt to copy', async () => {
    core.reply('draftWorktreeMessage', () => ({ message: 'm', drafted: true }));
    core.reply('mergeWorktree', () => ({ status: 'conflict', baseBranch: 'main', files: ['src/login.ts'] }));
    core.reply('handWorktreeConflict', () => ({
      status: 'conflict',
      files: ['src/login.ts'],
      prompt: 'Merging this worktree’s branch deft/login onto main conflicts…',
      path: login.path,
      branch: 'deft/login',
      baseBranch: 'main',
      sent: { sessionId: 's-1', title: 'Fix the login', created: false },
    }));
    core.reply('openWorktree', () => ({ opened: true, path: login.path }));
    const card = await open();
    await userEvent.click(within(card).getByRole('button', { name: 'Merge…' }));
    await userEvent.click(within(card).getByRole('button', { name: 'Merge' }));
    const choice = await within(card).findByRole('group', { name: 'Resolve the conflict' });
    await userEvent.click(within(choice).getByRole('button', { name: 'Resolve in that session' }));
    await waitFor(() => expect(card.textContent).toContain('Sent to its session “Fix the login”: its window starts it'));
    expect(within(card).queryByRole('textbox', { name: 'Prompt for the session' })).toBeNull();
  });

  it('keeps the default message and says why when the model cannot draft one', async () => {
    core.reply('draftWorktreeMessage', () => ({
      message: "Merge branch 'deft/login' (Deft worktree)",
      drafted: false,
      note: 'No model is configured: the default message is filled in.',
    }));
    const card = await open();
    await userEvent.click(within(card).getByRole('button', { name: 'Merge…' }));
    expect(await within(card).findByText(/No model is configured/)).toBeTruthy();
    expect(within(card).getByRole<HTMLTextAreaElement>('textbox', { name: 'Commit message' }).value).toBe("Merge branch 'deft/login' (Deft worktree)");
  });

  it('Create branch only commits with the message given, removes the worktree and says the branch is kept', async () => {
    core.reply('keepWorktreeBranch', () => ({ branch: 'deft/login', committed: true, removed: login.path }));
    const card = await open();
    await userEvent.click(within(card).getByRole('button', { name: 'Create branch only…' }));
    const form = within(card).getByRole('form', { name: 'Create branch only from deft/login' });
    const box = within(form).getByRole('textbox', { name: 'Commit message' });
    await userEvent.clear(box);
    await userEvent.type(box, 'WIP login');
    core.reply('listWorktrees', () => ({ repoRoot: '/repo', worktrees: [] }));
    await userEvent.click(within(form).getByRole('button', { name: 'Keep the branch, remove the worktree' }));
    expect(core.inputsOf('keepWorktreeBranch')).toEqual([{ name: 'login', message: 'WIP login' }]);
    expect((await screen.findByRole('status')).textContent).toContain('Committed its uncommitted changes on the branch deft/login');
  });

  it('applies, and tells a dirty main checkout by its files', async () => {
    core.reply('applyWorktree', () => ({ status: 'dirty', files: ['src/login.ts'] }));
    const card = await open();
    await userEvent.click(within(card).getByRole('button', { name: 'Apply to working tree' }));
    expect(core.inputsOf('applyWorktree')).toEqual([{ name: 'login' }]);
    const alert = await within(card).findByRole('alert');
    expect(alert.textContent).toContain('uncommitted changes in 1 file');
    expect(alert.textContent).toContain('src/login.ts');
  });

  it('discards only after a confirm, deleting the branch when asked', async () => {
    core.reply('discardWorktree', () => ({ removed: login.path, branchDeleted: true }));
    const card = await open();
    await userEvent.click(within(card).getByRole('button', { name: 'Discard…' }));
    expect(core.inputsOf('discardWorktree')).toEqual([]);
    const confirm = within(card).getByRole('group', { name: 'Discard deft/login' });
    expect(confirm.textContent).toContain('its uncommitted changes');
    await userEvent.click(within(confirm).getByRole('checkbox', { name: /Also delete the branch/ }));
    core.reply('listWorktrees', () => ({ repoRoot: '/repo', worktrees: [] }));
    await userEvent.click(within(confirm).getByRole('button', { name: 'Discard worktree' }));
    expect(core.inputsOf('discardWorktree')).toEqual([{ name: 'login', deleteBranch: true }]);
    expect((await screen.findByRole('status')).textContent).toBe('Discarded deft/login and deleted its branch.');
  });

  it('a workspace without worktrees (a remote folder: the capability is not loaded) is no repository, not an error', async () => {
    useUi.setState({ banner: null });
    useWorktrees.getState().setList({ repoRoot: '/repo', worktrees: [] });
    core.reply('listWorktrees', () => {
      throw new DeftError('unsupported', 'listWorktrees is not available for this workspace (its capability is not loaded).');
    });
    await refreshWorktrees();
    expect(useWorktrees.getState().repoRoot).toBeNull();
    expect(useUi.getState().banner).toBeNull();
    core.reply('listWorktrees', () => {
      throw new DeftError('internal', 'git crashed');
    });
    await refreshWorktrees();
    expect(useUi.getState().banner?.message).toBe('git crashed');
    useUi.setState({ banner: null });
  });

  it('a card with changes opens the worktree’s Changes view over the list; closing it comes back to the list', async () => {
    core.reply('listWorktrees', () => ({ repoRoot: '/repo', worktrees: [login] }));
    core.reply('worktreeChanges', () => ({ base: 'abc', head: 'a'.repeat(40), tree: 'b'.repeat(40), files: [], more: 0 }));
    act(() => useWorktrees.getState().show('list'));
    render(<WorktreesLayer />);
    const list = await screen.findByRole('dialog', { name: 'Worktrees' });
    await userEvent.click(await within(list).findByRole('button', { name: 'Show the changes on deft/login' }));
    const changes = await screen.findByRole('dialog', { name: 'Changes on deft/login' });
    expect(core.inputsOf('worktreeChanges')).toEqual([{ name: 'login' }]);
    await userEvent.click(within(changes).getByRole('button', { name: /Close/ }));
    expect(await screen.findByRole('dialog', { name: 'Worktrees' })).toBeTruthy();
  });

  it('outside a repository says why', async () => {
    core.reply('listWorktrees', () => ({ repoRoot: null, reason: 'not inside a git repository', worktrees: [] }));
    render(<WorktreesView onClose={() => {}} onNew={() => {}} />);
    expect((await screen.findByText(/No worktrees here/)).textContent).toContain('not inside a git repository');
  });
});

describe('the sidebar', () => {
  it('shows a session’s branch and changed files, and the repository’s other worktrees', () => {
    act(() => useWorktrees.getState().setList({ repoRoot: '/repo', worktrees: [login] }));
    render(
      <>
        <WorktreeChip worktree={{ name: 'login', branch: 'deft/login', baseBranch: 'main', repoRoot: '/repo' }} />
        <ul>
          <WorktreeSessions />
        </ul>
      </>,
    );
    expect(screen.getAllByText('deft/login')).toHaveLength(2);
    expect(screen.getAllByText(/2 changed files/)).toHaveLength(2);
    expect(screen.getByRole('button', { name: /^Fix the login redirect/ })).toBeTruthy();
  });

  it('shows whether another worktree’s sessions run or wait for you, in words for screen readers', () => {
    const api: WorktreeInfo = {
      ...login,
      name: 'api',
      branch: 'deft/api',
      sessions: [{ ...login.sessions[0]!, id: 's2', title: 'Add the API', live: 'waiting' }],
      live: 'waiting',
    };
    const running: WorktreeInfo = { ...login, sessions: [{ ...login.sessions[0]!, live: 'running' }], live: 'running' };
    act(() => useWorktrees.getState().setList({ repoRoot: '/repo', worktrees: [running, api] }));
    render(
      <ul>
        <WorktreeSessions />
      </ul>,
    );
    expect(screen.getByRole('button', { name: /^Fix the login redirect/ }).textContent).toMatch(/deft\/login.*running/);
    expect(screen.getByRole('button', { name: /^Add the API/ }).textContent).toContain('waiting for you');
    expect(screen.getByRole('button', { name: /^Fix the login redirect/ }).textContent).not.toContain('waiting for you');
    act(() => useWorktrees.getState().setList({ repoRoot: '/repo', worktrees: [login] }));
    expect(screen.getByRole('button', { name: /^Fix the login redirect/ }).textContent).not.toMatch(/running|waiting/);
  });

  it('says a conflict handed to a worktree nobody has open waits; its row opens it there, or says how to run it headless', async () => {
    core.reply('openWorktree', () => ({ opened: false, path: login.path }));
    const handed: WorktreeInfo = { ...login, conflictWaiting: 's1' };
    act(() => useWorktrees.getState().setList({ repoRoot: '/repo', worktrees: [handed] }));
    render(
      <>
        <ul>
          <WorktreeSessions />
        </ul>
        <WorktreeNotice />
      </>,
    );
    const row = screen.getByRole('button', { name: /^Fix the login redirect/ });
    expect(row.textContent).toContain('conflict to resolve');
    await userEvent.click(row);
    expect(core.inputsOf('openWorktree')).toEqual([{ name: 'login' }]);
    expect((await screen.findByRole('status')).textContent).toContain('deft worktrees resolve login');
    // Taken (its window opened it): the poll sees it go, and the row says so.
    expect(useWorktrees.getState().setLive([{ name: 'login', sessions: login.sessions, live: 'running' }])).toBe(true);
    await waitFor(() => expect(screen.getByRole('button', { name: /^Fix the login redirect/ }).textContent).not.toContain('conflict to resolve'));
  });

  it('says what a deleted session did to its worktree', async () => {
    core.reply('deleteSession', () => ({
      ok: true,
      worktree: { name: 'login', branch: 'deft/login', removed: false, reason: 'Its worktree deft/login is kept: it has uncommitted changes.' },
    }));
    await deleteSession('s1');
    render(<WorktreeNotice />);
    expect(screen.getByRole('status').textContent).toContain('is kept: it has uncommitted changes');
  });

  it('deleting a session names the sub-agent worktrees kept with their changes (branch and folder), and counts those removed', async () => {
    core.reply('deleteSession', () => ({
      ok: true,
      agentWorktrees: [
        { name: 'agent-a', branch: 'deft/agent-a', path: '/w/agent-a', removed: false, reason: 'kept' },
        { name: 'agent-b', branch: 'deft/agent-b', path: '/w/agent-b', removed: true, reason: 'removed' },
      ],
    }));
    await deleteSession('s2');
    render(<WorktreeNotice />);
    const told = screen.getByRole('status').textContent;
    expect(told).toContain('Kept the worktree of its sub-agents, with their changes: deft/agent-a at /w/agent-a.');
    expect(told).toContain('Removed the worktree of its sub-agents (nothing to merge).');
  });
});

describe('one window, several cores (the web host)', () => {
  it('a new worktree is switched to by name, or stayed away from', async () => {
    core.reply('createWorktree', () => ({ worktree: login, copied: [], skipped: [], notes: [] }));
    core.reply('openWorktree', () => ({ opened: true, path: login.path, here: true }));
    core.reply('listWorktrees', () => ({ repoRoot: '/repo', worktrees: [login] }));
    render(<NewWorktreeDialog onClose={() => {}} />);
    await userEvent.click(screen.getByRole('button', { name: 'Create worktree' }));
    expect((await screen.findByRole('status')).textContent).toContain('beside this folder');
    expect(screen.getByRole('button', { name: 'Stay here' })).toBeTruthy();
    expect(switched).toEqual([]);
    await userEvent.click(screen.getByRole('button', { name: 'Switch to deft/login' }));
    expect(switched).toEqual(['login']);
  });

  it('a worktree row switches this window to it; on a worktree, the bar says which and goes back to the main checkout', async () => {
    core.reply('openWorktree', () => ({ opened: true, path: login.path, here: true }));
    act(() => useWorktrees.getState().setList({ repoRoot: '/repo', worktrees: [login] }));
    const { unmount } = render(
      <ul>
        <WorktreeSessions />
      </ul>,
    );
    await userEvent.click(screen.getByRole('button', { name: /^Fix the login redirect/ }));
    await waitFor(() => expect(switched).toEqual(['login']));
    expect(core.inputsOf('openWorktree')).toEqual([{ name: 'login' }]);
    unmount();
    // Now on that worktree: not listed as another one; the bar names it and leads back.
    act(() => useWorktrees.getState().setViewing({ name: 'login', branch: 'deft/login' }));
    render(
      <>
        <WorktreeViewBar />
        <ul>
          <WorktreeSessions />
        </ul>
      </>,
    );
    expect(screen.queryByRole('button', { name: /^Fix the login redirect/ })).toBeNull();
    const bar = screen.getByRole('group', { name: 'Where this window is' });
    expect(bar.textContent).toContain('deft/login');
    await userEvent.click(within(bar).getByRole('button', { name: '← Main checkout' }));
    expect(switched).toEqual(['login', null]);
    // A question waiting in the main checkout meanwhile: the way back says so.
    act(() => useWorktrees.getState().setMainLive('waiting'));
    expect(within(bar).getByRole('button', { name: /^← Main checkout/ }).textContent).toContain('waiting for you');
  });
});
