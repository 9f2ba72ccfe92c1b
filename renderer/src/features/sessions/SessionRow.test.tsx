import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { core } from '../../testing/core';
import { SessionRow } from './SessionRow';

const session = { id: 's1', title: 'Fix rounding', workspace: '/w', createdAt: 1, updatedAt: Date.now(), turns: 2, running: false };

describe('a session row', () => {
  it('opens its actions menu on a right-click, and Rename from there edits the title in place', async () => {
    render(
      <ul>
        <SessionRow session={session} current={false} waiting={false} />
      </ul>,
    );
    const open = fireEvent.contextMenu(screen.getByRole('button', { name: /^Fix rounding/ }));
    expect(open).toBe(false); // the browser's own menu is not shown
    const menu = screen.getByRole('menu', { name: 'Actions for Fix rounding' });
    expect([...menu.querySelectorAll('[role="menuitem"]')].map((item) => item.textContent)).toEqual([
      'Rename',
      'Fork',
      'Export as Markdown',
      'Export raw log (JSONL)',
      'Delete',
    ]);
    // A second right-click leaves it open.
    fireEvent.contextMenu(screen.getByRole('button', { name: /^Fix rounding/ }));
    expect(screen.getByRole('menu', { name: 'Actions for Fix rounding' })).toBeTruthy();
    await userEvent.click(screen.getByRole('menuitem', { name: 'Rename' }));
    expect(screen.getByRole('textbox')).toBeTruthy();
  });

  it('Fork makes a new session of the whole conversation and opens it', async () => {
    const fork = { ...session, id: 's2', title: 'Fix rounding', forkedFrom: { sessionId: 's1', atPrompt: 2, title: 'Fix rounding' } };
    core.reply('forkSession', () => ({ session: fork, atPrompt: 2, restored: null }));
    render(
      <ul>
        <SessionRow session={session} current={false} waiting={false} />
      </ul>,
    );
    fireEvent.contextMenu(screen.getByRole('button', { name: /^Fix rounding/ }));
    await userEvent.click(screen.getByRole('menuitem', { name: 'Fork' }));
    expect(core.inputsOf('forkSession')).toEqual([{ sessionId: 's1', files: 'keep' }]);
    await waitFor(() => expect(core.inputsOf('openSession')).toEqual([{ sessionId: 's2' }]));
    expect(screen.queryByRole('menu')).toBeNull();
  });
});
