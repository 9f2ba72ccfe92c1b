import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { core } from '../../testing/core';
import { SESSION_ID, arrive, openSession, sessionEvents } from '../../testing/session';
import { Rows } from '../../testing/transcript';

// Tool cards rendered from a session's events, as the conversation shows them.

const turn = (e: ReturnType<typeof sessionEvents>) => [
  e('turn.started', { turnId: 't1', text: 'Fix it', attachments: [], origin: 'user' }),
  e('step.started', { turnId: 't1', step: 1 }),
];

describe('tool cards', () => {
  it('an Edit shows its diff open, with the removed and added lines and its counts in the title; the title closes it', async () => {
    const e = sessionEvents();
    // As the core sends it (infra/text/diff-hunks.ts): hunks with 3 lines of context, and the counts.
    const hunk = {
      oldStart: 1,
      oldLines: 2,
      newStart: 1,
      newLines: 2,
      lines: ['-export const rate = 1;', '+export const rate = 2;', ' export const name = "x";'],
    };
    const diff = { kind: 'diff' as const, path: 'src/money.js', hunks: [hunk], added: 1, removed: 1 };
    openSession([
      ...turn(e),
      e('tool.call.started', { turnId: 't1', step: 1, callId: 'c1', name: 'Edit', args: {}, description: 'Edit src/money.js', display: diff }),
      e('tool.call.result', { turnId: 't1', callId: 'c1', name: 'Edit', isError: false, output: 'Edited src/money.js', display: diff, durationMs: 12 }),
    ]);
    render(<Rows />);
    const card = screen.getByRole('group', { name: 'Edit tool call' });
    const toggle = within(card).getByRole('button', { name: 'Edit src/money.js' });
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(within(card).getByLabelText('1 lines added, 1 lines removed')).toBeTruthy();
    const rows = within(card)
      .getAllByRole('row')
      .map((r) => r.textContent);
    expect(rows).toContain('1−export const rate = 1;');
    expect(rows).toContain('1+export const rate = 2;');
    expect(rows).toContain('22export const name = "x";');
    // Inside the changed lines, the changed word is marked on each side.
    expect([...card.querySelectorAll('.diff-del .diff-word')].map((w) => w.textContent)).toEqual(['1']);
    expect([...card.querySelectorAll('.diff-add .diff-word')].map((w) => w.textContent)).toEqual(['2']);

    await userEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(within(card).queryAllByRole('row')).toHaveLength(0);
  });

  it('a Write of a new file says so and shows every line as added', () => {
    const e = sessionEvents();
    const hunk = { oldStart: 0, oldLines: 0, newStart: 1, newLines: 3, lines: ['+# Changelog', '+', '+- two decimals'] };
    const diff = { kind: 'diff' as const, path: 'CHANGELOG.md', hunks: [hunk], added: 3, removed: 0 };
    openSession([
      ...turn(e),
      e('tool.call.started', { turnId: 't1', step: 1, callId: 'c1', name: 'Write', args: {}, description: 'Create CHANGELOG.md', display: diff }),
      e('tool.call.result', { turnId: 't1', callId: 'c1', name: 'Write', isError: false, output: 'Wrote CHANGELOG.md', display: diff, durationMs: 3 }),
    ]);
    render(<Rows />);
    const card = screen.getByRole('group', { name: 'Write tool call' });
    expect(within(card).getByRole('button', { name: 'Create CHANGELOG.md' })).toBeTruthy();
    expect(within(card).getByText('new file')).toBeTruthy();
    expect(within(card).getByLabelText('3 lines added, 0 lines removed')).toBeTruthy();
    expect(
      within(card)
        .getAllByRole('row')
        .map((r) => r.textContent),
    ).toEqual(['@@ -0,0 +1,3 @@', '1+# Changelog', '2+\u200b', '3+- two decimals']); // an empty line keeps its height
  });

  it('a failed call starts open with its error; a finished one starts closed and opens on a click', async () => {
    const e = sessionEvents();
    openSession([
      ...turn(e),
      e('tool.call.started', {
        turnId: 't1',
        step: 1,
        callId: 'c1',
        name: 'Read',
        args: {},
        description: 'Read src/gone.js',
        display: { kind: 'file_io', operation: 'read', path: 'src/gone.js' },
      }),
      e('tool.call.result', {
        turnId: 't1',
        callId: 'c1',
        name: 'Read',
        isError: true,
        output: 'File not found: src/gone.js',
        display: { kind: 'error', message: 'File not found: src/gone.js. Use Glob to find it.' },
        durationMs: 1,
      }),
      e('tool.call.started', {
        turnId: 't1',
        step: 1,
        callId: 'c2',
        name: 'Glob',
        args: {},
        description: 'Glob src/**/*.js',
        display: { kind: 'search', query: 'src/**/*.js' },
      }),
      e('tool.call.result', {
        turnId: 't1',
        callId: 'c2',
        name: 'Glob',
        isError: false,
        output: 'src/money.js',
        display: { kind: 'file_list', files: ['src/money.js', 'src/rates.js'] },
        durationMs: 1,
      }),
    ]);
    render(<Rows />);
    const failed = screen.getByRole('group', { name: 'Read tool call' });
    expect(within(failed).getByText('File not found: src/gone.js. Use Glob to find it.')).toBeTruthy();
    const found = screen.getByRole('group', { name: 'Glob tool call' });
    expect(within(found).getByText('2 files')).toBeTruthy();
    expect(within(found).queryByText('src/rates.js')).toBeNull();
    await userEvent.click(within(found).getByRole('button', { name: 'Glob src/**/*.js' }));
    expect(within(found).getByText('src/rates.js')).toBeTruthy();
  });

  it('a running Bash command streams its output and Stop asks the core to stop that call', async () => {
    const e = sessionEvents();
    openSession([
      ...turn(e),
      e('tool.call.started', {
        turnId: 't1',
        step: 1,
        callId: 'bash-1',
        name: 'Bash',
        args: {},
        description: 'Run the tests',
        display: { kind: 'command', command: 'npm test', cwd: '.', sandboxed: true, description: 'Run the tests' },
      }),
      e('tool.call.progress', { turnId: 't1', callId: 'bash-1', kind: 'stdout', text: 'PASS money.test.js\n' }),
    ]);
    render(<Rows />);
    const card = screen.getByRole('group', { name: 'Bash tool call' });
    // The header shows the command itself, its description as a subtitle.
    const toggle = within(card).getByRole('button', { name: 'Bash npm test' });
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(card.querySelector('.tool-header .tool-description')?.textContent).toBe('npm test');
    expect(card.querySelector('.tool-header .tool-subtitle')?.textContent).toBe('Run the tests');
    expect(within(card).getByText('sandboxed')).toBeTruthy();
    expect(within(card).getByLabelText('Live output').textContent).toBe('PASS money.test.js\n');
    arrive([e('tool.call.progress', { turnId: 't1', callId: 'bash-1', kind: 'stdout', text: 'PASS rates.test.js\n' })]);
    expect(within(card).getByLabelText('Live output').textContent).toBe('PASS money.test.js\nPASS rates.test.js\n');

    await userEvent.click(within(card).getByRole('button', { name: 'Stop command' }));
    expect(core.inputsOf('stopOrBackgroundCommand')).toEqual([{ sessionId: SESSION_ID, callId: 'bash-1', action: 'stop' }]);
  });

  it('a finished Bash command shows its exit code, and a failed one opens on its output with stderr lines marked', () => {
    const e = sessionEvents();
    const command = { kind: 'command' as const, command: 'npm run lint' };
    openSession([
      ...turn(e),
      e('tool.call.started', { turnId: 't1', step: 1, callId: 'b1', name: 'Bash', args: {}, description: 'Run the linter', display: command }),
      e('tool.call.result', {
        turnId: 't1',
        callId: 'b1',
        name: 'Bash',
        isError: true,
        output: 'checking lint\nsrc/money.js:6 error: missing semicolon',
        display: { kind: 'command_output', exitCode: 1, output: 'checking lint\nsrc/money.js:6 error: missing semicolon', stderrLines: [[1, 2]] },
        durationMs: 40,
      }),
    ]);
    render(<Rows />);
    const card = screen.getByRole('group', { name: 'Bash tool call' });
    expect(within(card).getByText('exit 1')).toBeTruthy();
    const output = within(card).getByLabelText('Output (failed)');
    const stderr = [...output.querySelectorAll('.stderr-line')].map((line) => line.textContent);
    expect(stderr).toEqual(['src/money.js:6 error: missing semicolon']);
    expect(output.textContent).toBe('checking lint\nsrc/money.js:6 error: missing semicolon');
  });

  it('hooks that changed nothing are one chip on the card, opened to what each said; no rows of their own', async () => {
    const e = sessionEvents();
    const command = { kind: 'command' as const, command: 'npm test' };
    const hook = (result: 'allowed' | 'output', event: 'PreToolUse' | 'PostToolUse') =>
      e('hook.ran', { turnId: 't1', callId: 'b1', event, command: 'audit.sh', source: 'user', result, message: 'logged', toolName: 'Bash' });
    openSession([
      ...turn(e),
      hook('allowed', 'PreToolUse'),
      e('tool.call.started', { turnId: 't1', step: 1, callId: 'b1', name: 'Bash', args: {}, description: 'Run the tests', display: command }),
      hook('output', 'PostToolUse'),
      e('tool.call.result', { turnId: 't1', callId: 'b1', name: 'Bash', isError: false, output: 'ok', durationMs: 40 }),
    ]);
    render(<Rows />);
    const card = screen.getByRole('group', { name: 'Bash tool call' });
    const chip = within(card).getByText('2 hooks ran');
    // No rows of their own: every mention of the hooks is inside the card.
    expect(screen.getAllByText(/audit\.sh/).every((node) => card.contains(node))).toBe(true);
    const details = chip.closest('details')!;
    expect(details.open).toBe(false);
    await userEvent.click(chip);
    expect(details.open).toBe(true);
    expect(within(card).getByText('PostToolUse hook “audit.sh” (your settings) said: logged')).toBeTruthy();
    expect(within(card).getByText('PreToolUse hook “audit.sh” (your settings) allowed Bash: logged')).toBeTruthy();
  });

  it('every card has one header pattern: an MCP call names server › tool, and a failed card says so once', () => {
    const e = sessionEvents();
    const mcp = { kind: 'mcp_call' as const, server: 'github', tool: 'create_issue', arguments: '{"title":"Bug"}' };
    openSession([
      ...turn(e),
      e('tool.call.started', {
        turnId: 't1',
        step: 1,
        callId: 'm1',
        name: 'mcp__github__create_issue',
        args: {},
        description: 'github: Create issue',
        display: mcp,
      }),
      e('tool.call.result', { turnId: 't1', callId: 'm1', name: 'mcp__github__create_issue', isError: false, output: 'Created #4', durationMs: 5 }),
      e('tool.call.started', {
        turnId: 't1',
        step: 1,
        callId: 'm2',
        name: 'mcp__github__close_issue',
        args: {},
        description: 'mcp__github__close_issue',
        display: { kind: 'generic', summary: 'mcp__github__close_issue' },
      }),
      e('tool.call.result', { turnId: 't1', callId: 'm2', name: 'mcp__github__close_issue', isError: true, output: 'Unknown tool', durationMs: 0 }),
      e('tool.call.started', {
        turnId: 't1',
        step: 1,
        callId: 'f1',
        name: 'Read',
        args: {},
        description: 'Read src/gone.js',
        display: { kind: 'file_io', operation: 'read', path: 'src/gone.js' },
      }),
      e('tool.call.result', {
        turnId: 't1',
        callId: 'f1',
        name: 'Read',
        isError: true,
        output: 'File not found: src/gone.js',
        display: { kind: 'error', message: 'File not found: src/gone.js' },
        durationMs: 1,
      }),
      e('tool.call.started', {
        turnId: 't1',
        step: 1,
        callId: 'b1',
        name: 'Bash',
        args: {},
        description: 'npm run lint',
        display: { kind: 'command', command: 'npm run lint' },
      }),
      e('tool.call.result', {
        turnId: 't1',
        callId: 'b1',
        name: 'Bash',
        isError: true,
        output: 'missing semicolon',
        display: { kind: 'command_output', exitCode: 1, output: 'missing semicolon' },
        durationMs: 4,
      }),
    ]);
    render(<Rows />);
    const call = screen.getByRole('group', { name: 'mcp__github__create_issue tool call' });
    expect(call.querySelector('.tool-header .tool-name')?.textContent).toBe('github › create_issue');
    expect(within(call).getByRole('button', { name: 'github › create_issue Create issue' })).toBeTruthy();
    // A call that never reached its server reads the same, without repeating its name.
    const unreached = screen.getByRole('group', { name: 'mcp__github__close_issue tool call' });
    expect(within(unreached).getByRole('button', { name: 'github › close_issue' })).toBeTruthy();
    expect(unreached.querySelector('.tool-header')?.textContent).not.toContain('mcp__');

    const failed = screen.getByRole('group', { name: 'Read tool call' });
    expect(within(failed).getAllByText('failed')).toHaveLength(1);
    expect(within(failed).getAllByText('File not found: src/gone.js')).toHaveLength(1);

    // A command says how it failed with its exit code, and nothing else in the header.
    const bash = screen.getByRole('group', { name: 'Bash tool call' });
    expect(bash.querySelector('.tool-header .tool-status')?.textContent).toBe('exit 14 ms');
    expect(bash.querySelector('.tool-header .tool-subtitle')).toBeNull();
    for (const card of [call, failed, bash]) {
      const header = card.querySelector('.tool-header')!;
      expect([...header.children].map((c) => c.className.split(' ')[0])).toEqual(expect.arrayContaining(['tool-toggle', 'tool-main', 'tool-status']));
    }
  });

  it("MergeAgentWork's card says what it merges into which branch once, and its result reads line by line when opened", async () => {
    const e = sessionEvents();
    const output = [
      'Merged 1 of 2 sub-agents into main; 1 conflict (agent-b-2: app.txt).',
      '- agent-a-1 (branch deft/agent-a-1): MERGED into main as 0123456789ab: a.txt',
      '- agent-b-2 (branch deft/agent-b-2): CONFLICT in app.txt',
    ].join('\n');
    openSession([
      ...turn(e),
      e('tool.call.started', {
        turnId: 't1',
        step: 1,
        callId: 'g1',
        name: 'MergeAgentWork',
        args: {},
        description: 'Merge deft/agent-a-1, deft/agent-b-2 into main',
        display: { kind: 'generic', summary: 'MergeAgentWork deft/agent-a-1, deft/agent-b-2 → main' },
      }),
      e('tool.call.result', {
        turnId: 't1',
        callId: 'g1',
        name: 'MergeAgentWork',
        isError: false,
        output,
        display: { kind: 'generic', summary: 'Merged 1 of 2 sub-agents into main; 1 conflict (agent-b-2: app.txt)' },
        durationMs: 40,
      }),
    ]);
    render(<Rows />);
    const card = screen.getByRole('group', { name: 'MergeAgentWork tool call' });
    const toggle = within(card).getByRole('button', { name: 'Merge deft/agent-a-1, deft/agent-b-2 into main' });
    await userEvent.click(toggle);
    expect(card.querySelector('.tool-output')?.textContent).toBe(output);
  });
});
