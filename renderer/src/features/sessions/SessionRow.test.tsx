import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
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
});
