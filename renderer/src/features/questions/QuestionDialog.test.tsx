import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { openSession, sessionEvents } from '../../testing/session';
import { QuestionDialog } from './QuestionDialog';

const option = (label: string) => ({ label, description: '' });

function ask() {
  const e = sessionEvents();
  const questions = [
    { question: 'Which test runner?', header: 'Tests', multiSelect: false, options: ['Vitest', 'Jest', 'Mocha'].map(option) },
    { question: 'Which reports?', header: '', multiSelect: true, options: ['Coverage', 'JUnit'].map(option) },
  ];
  openSession([
    e('turn.started', { turnId: 't1', text: 'Set up tests', attachments: [], origin: 'user' }),
    e('question.asked', { turnId: 't1', requestId: 'r1', callId: 'c1', questions }),
  ]);
  render(<QuestionDialog />);
  return screen.getByRole('dialog', { name: 'Deft has 2 questions' });
}

describe('the question dialog', () => {
  it('number keys pick the option of the question in focus; the one after the last goes to Other', async () => {
    const dialog = ask();
    const [runner, reports] = within(dialog).getAllByRole('group');
    within(runner!).getByRole('radio', { name: 'Vitest' }).focus();
    await userEvent.keyboard('3');
    expect(within(runner!).getByRole<HTMLInputElement>('radio', { name: 'Mocha' }).checked).toBe(true);
    expect(document.activeElement).toBe(within(runner!).getByRole('radio', { name: 'Mocha' }));
    await userEvent.keyboard('2');
    expect(within(runner!).getByRole<HTMLInputElement>('radio', { name: 'Jest' }).checked).toBe(true);
    expect(within(runner!).getByRole<HTMLInputElement>('radio', { name: 'Mocha' }).checked).toBe(false);

    // In a multi-select question a number toggles its option.
    within(reports!).getByRole('checkbox', { name: 'Coverage' }).focus();
    await userEvent.keyboard('2');
    await userEvent.keyboard('1');
    expect(within(reports!).getByRole<HTMLInputElement>('checkbox', { name: 'Coverage' }).checked).toBe(true);
    expect(within(reports!).getByRole<HTMLInputElement>('checkbox', { name: 'JUnit' }).checked).toBe(true);
    await userEvent.keyboard('1');
    expect(within(reports!).getByRole<HTMLInputElement>('checkbox', { name: 'Coverage' }).checked).toBe(false);

    // Typing digits into the own-answer field types them.
    await userEvent.keyboard('3');
    const own = within(reports!).getByRole('textbox', { name: 'Your own answer to: Which reports?' });
    expect(document.activeElement).toBe(within(reports!).getByRole('checkbox', { name: 'Other' }));
    await userEvent.click(own);
    await userEvent.keyboard('42');
    expect((own as HTMLInputElement).value).toBe('42');
  });

  it('shows each option its number key', () => {
    const dialog = ask();
    const [runner] = within(dialog).getAllByRole('group');
    expect([...runner!.querySelectorAll('.option-key')].map((k) => k.textContent)).toEqual(['1', '2', '3']);
  });
});
