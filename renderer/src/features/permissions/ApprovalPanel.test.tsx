import { fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { core } from '../../testing/core';
import { SESSION_ID, arrive, openSession, sessionEvents } from '../../testing/session';
import { ApprovalPanel } from './ApprovalPanel';

// The approval panel rendered from a session's approval.requested events: what it shows, and what each
// answer (a click, a key, feedback) sends to the core.

const hunk = { oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-export const rate0 = 0;', '+export const rate0 = 0 * 2;'] };

function requestEdit(e = sessionEvents(), requestId = 'r1') {
  return [
    e('turn.started', { turnId: 't1', text: 'Double the rates', attachments: [], origin: 'user' }),
    e('approval.requested', {
      turnId: 't1',
      requestId,
      kind: 'tool',
      callId: 'c1',
      toolName: 'Edit',
      description: 'Edit src/rates.js',
      display: { kind: 'diff', path: 'src/rates.js', hunks: [hunk], added: 1, removed: 1 },
      reason: 'Edits ask in the ask mode.',
      approvalRule: 'Edit(src/rates.js)',
    }),
  ];
}

const answers = () => core.inputsOf('answerApproval');

describe('approval panel', () => {
  it('shows what asks, why, the diff it would make and the rule it would remember', () => {
    openSession(requestEdit());
    render(<ApprovalPanel />);
    const panel = screen.getByRole('region', { name: 'Approval needed' });
    expect(within(panel).getByRole('heading', { name: 'Approval needed' })).toBeTruthy();
    expect(within(panel).getByText('Edit src/rates.js')).toBeTruthy();
    expect(within(panel).getByText('Edits ask in the ask mode.')).toBeTruthy();
    expect(
      within(panel)
        .getAllByRole('row')
        .map((r) => r.textContent),
    ).toEqual(['@@ -1,1 +1,1 @@', '1−export const rate0 = 0;', '1+export const rate0 = 0 * 2;']);
    expect(within(panel).getByText('Edit(src/rates.js)')).toBeTruthy();
    const buttons = within(panel)
      .getAllByRole('button')
      .map((b) => b.textContent?.trim());
    expect(buttons).toEqual(expect.arrayContaining(['Approve onceY', 'Approve for sessionA', 'Always allow…⇧A', 'RejectN']));
  });

  it('sends the answer of the button clicked, for this request of this session', async () => {
    openSession(requestEdit());
    render(<ApprovalPanel />);
    await userEvent.click(screen.getByRole('button', { name: /Approve for session/ }));
    expect(answers()).toEqual([{ sessionId: SESSION_ID, requestId: 'r1', answer: { decision: 'approve', scope: 'session' } }]);
  });

  it('answers with single keys while the focus is in it (the primary answer has the focus), but not while typing feedback', async () => {
    openSession(requestEdit());
    render(<ApprovalPanel />);
    const primary = screen.getByRole('button', { name: /Approve once/ });
    expect(document.activeElement).toBe(primary);
    const feedback = screen.getByRole('textbox', { name: 'Feedback for Deft (sent if you reject)' });
    await userEvent.type(feedback, 'any');
    expect(answers()).toEqual([]);
    fireEvent.keyDown(primary, { key: 'y' });
    expect(answers()).toEqual([{ sessionId: SESSION_ID, requestId: 'r1', answer: { decision: 'approve', scope: 'once' } }]);
  });

  it('a rejection carries the feedback typed; Enter in the feedback box sends it', async () => {
    openSession(requestEdit());
    render(<ApprovalPanel />);
    const feedback = screen.getByRole('textbox', { name: 'Feedback for Deft (sent if you reject)' });
    await userEvent.type(feedback, 'Put it in docs/ instead{Enter}');
    expect(answers()).toEqual([{ sessionId: SESSION_ID, requestId: 'r1', answer: { decision: 'reject', feedback: 'Put it in docs/ instead' } }]);
  });

  it('shows the oldest request first with its place in the queue, and the next once it is resolved', () => {
    const e = sessionEvents();
    openSession([
      ...requestEdit(e, 'r1'),
      e('approval.requested', {
        turnId: 't1',
        requestId: 'r2',
        kind: 'tool',
        toolName: 'Bash',
        description: 'Run npm test',
        display: { kind: 'command', command: 'npm test' },
        reason: 'Commands ask.',
      }),
    ]);
    render(<ApprovalPanel />);
    expect(screen.getByText('1 of 2')).toBeTruthy();
    expect(screen.getByText('Edit src/rates.js')).toBeTruthy();
    arrive([e('approval.resolved', { requestId: 'r1', outcome: 'approved', scope: 'once' })]);
    expect(screen.getByText('$ npm test')).toBeTruthy();
    expect(screen.queryByText('1 of 2')).toBeNull();
    // No rule to remember: only once or reject.
    expect(screen.queryByRole('button', { name: /for session/ })).toBeNull();
  });

  it('a goal start offers to start it as usual or without asking, which sends the goal mode', async () => {
    const e = sessionEvents();
    openSession([
      e('turn.started', { turnId: 't1', text: 'Keep at it', attachments: [], origin: 'user' }),
      e('approval.requested', {
        turnId: 't1',
        requestId: 'g1',
        kind: 'goal_start',
        toolName: 'CreateGoal',
        description: 'Start a goal',
        display: { kind: 'goal_start', objective: 'Make the money tests pass', completionCriterion: 'node src/money.test.js exits 0' },
        reason: 'A goal runs many turns.',
      }),
    ]);
    render(<ApprovalPanel />);
    expect(screen.getByRole('heading', { name: 'Start a goal?' })).toBeTruthy();
    expect(screen.getByText('Make the money tests pass')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: /Start without asking/ }));
    expect(answers()).toEqual([{ sessionId: SESSION_ID, requestId: 'g1', answer: { decision: 'approve', scope: 'once', goalMode: 'yolo' } }]);
  });
});
