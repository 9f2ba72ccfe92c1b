import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { AgentInfo } from '#protocol';
import { useAgentLive } from '../../stores/agents';
import { eventsOf } from '../../stores/test-events';
import { core } from '../../testing/core';
import { SESSION_ID, arrive, openSession, sessionEvents } from '../../testing/session';
import { Rows } from '../../testing/transcript';

// The sub-agent card rendered from the session's events (the Agent call and agent.updated), its live line
// from the sub-agent's own events, and its transcript as the core returns it.

const usage = { inputTokens: 1200, outputTokens: 80 };
const agent = (fields: Partial<AgentInfo> = {}): AgentInfo => ({
  agentId: 'a-1',
  type: 'explore',
  description: 'look around',
  status: 'running',
  callId: 'c1',
  startedAt: 1000,
  usage,
  steps: 1,
  ...fields,
});

function started(e = sessionEvents()) {
  return [
    e('turn.started', { turnId: 't1', text: 'Find the port', attachments: [], origin: 'user' }),
    e('tool.call.started', {
      turnId: 't1',
      step: 1,
      callId: 'c1',
      name: 'Agent',
      args: { description: 'look around' },
      description: 'look around',
      display: { kind: 'agent_call', agentName: 'explore', prompt: 'find the port' },
    }),
    e('agent.updated', { agent: agent() }),
  ];
}

describe('sub-agent card', () => {
  it('says which sub-agent runs and its live step, and Stop sends a stop for that agent', async () => {
    openSession(started());
    const sub = eventsOf('a-1');
    act(() =>
      useAgentLive.getState().apply(SESSION_ID, [
        {
          type: 'agent.event',
          sessionId: SESSION_ID,
          agentId: 'a-1',
          event: sub('tool.call.started', {
            turnId: 'st',
            step: 1,
            callId: 'x',
            name: 'Bash',
            args: {},
            description: 'scan the tree',
            display: { kind: 'command', command: 'ls' },
          }),
        },
      ]),
    );
    render(<Rows />);
    const card = screen.getByRole('group', { name: 'Sub-agent explore: look around' });
    expect(within(card).getByText('Bash: scan the tree')).toBeTruthy();
    await userEvent.click(within(card).getByRole('button', { name: 'Stop' }));
    expect(core.inputsOf('stopAgents')).toEqual([{ sessionId: SESSION_ID, agentId: 'a-1' }]);
    // The header every tool card has: the toggle names the type and the task, and closes the body.
    const toggle = within(card).getByRole('button', { name: 'explore look around' });
    expect(toggle.closest('.tool-header')).toBeTruthy();
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(within(card).getByText('Running')).toBeTruthy();
    await userEvent.click(toggle);
    expect(within(card).queryByRole('button', { name: 'Stop' })).toBeNull();
  });

  it('shows the final answer when done, and opens the transcript the core returns, with its own tool cards', async () => {
    const e = sessionEvents();
    openSession(started(e));
    arrive([e('agent.updated', { agent: agent({ status: 'completed', endedAt: 4000, steps: 3, result: 'The port is **8080**.' }) })]);
    const sub = eventsOf('a-1');
    core.reply('getAgentTranscript', () => ({
      events: [
        sub('turn.started', { turnId: 'st', text: 'find the port', attachments: [], origin: 'user' }),
        sub('tool.call.started', {
          turnId: 'st',
          step: 1,
          callId: 'x',
          name: 'Read',
          args: {},
          description: 'Read notes.md',
          display: { kind: 'file_io', operation: 'read', path: 'notes.md' },
        }),
        sub('tool.call.result', {
          turnId: 'st',
          callId: 'x',
          name: 'Read',
          isError: false,
          output: 'The port is 8080.',
          display: { kind: 'file_content', path: 'notes.md', content: 'The port is 8080.\n', range: { start: 1, end: 1 } },
          durationMs: 2,
        }),
      ],
    }));
    render(<Rows />);
    const card = screen.getByRole('group', { name: 'Sub-agent explore: look around' });
    expect(within(card).getByText('Done')).toBeTruthy();
    expect(within(card).getByRole('heading', { name: 'Final answer' })).toBeTruthy();
    expect(within(card).getByText('8080').tagName).toBe('STRONG');
    expect(within(card).queryByRole('button', { name: 'Stop' })).toBeNull();

    await userEvent.click(within(card).getByRole('button', { name: 'Show transcript' }));
    expect(core.inputsOf('getAgentTranscript')).toEqual([{ sessionId: SESSION_ID, agentId: 'a-1' }]);
    const transcript = await within(card).findByRole('log', { name: 'Transcript of explore sub-agent: look around' });
    expect(within(transcript).getByText('find the port')).toBeTruthy();
    expect(within(transcript).getByRole('group', { name: 'Read tool call' })).toBeTruthy();
  });

  it('an Agent call that failed before its sub-agent started shows why', () => {
    const e = sessionEvents();
    openSession([
      e('turn.started', { turnId: 't1', text: 'Find the port', attachments: [], origin: 'user' }),
      e('tool.call.started', {
        turnId: 't1',
        step: 1,
        callId: 'c1',
        name: 'Agent',
        args: { description: 'look around' },
        description: 'look around',
        display: { kind: 'agent_call', agentName: 'nope', prompt: 'p' },
      }),
      e('tool.call.result', {
        turnId: 't1',
        callId: 'c1',
        name: 'Agent',
        isError: true,
        output: 'No sub-agent type "nope". Use one of: explore, plan.',
        durationMs: 1,
      }),
    ]);
    render(<Rows />);
    const card = screen.getByRole('group', { name: 'Sub-agent nope: look around' });
    expect(within(card).getByText('Not started')).toBeTruthy();
    expect(within(card).getByText('No sub-agent type "nope". Use one of: explore, plan.')).toBeTruthy();
  });

  it('a swarm tile that runs shows its current step', () => {
    const e = sessionEvents();
    openSession([
      e('turn.started', { turnId: 't1', text: 'Review each file', attachments: [], origin: 'user' }),
      e('tool.call.started', {
        turnId: 't1',
        step: 1,
        callId: 'c1',
        name: 'AgentSwarm',
        args: {},
        description: 'review files',
        display: { kind: 'agent_swarm', agentName: 'explore', description: 'review files', items: ['alpha', 'beta'] },
      }),
      e('agent.updated', { agent: agent({ swarmId: 'w1', item: 'alpha', steps: 3 }) }),
    ]);
    const sub = eventsOf('a-1');
    act(() =>
      useAgentLive.getState().apply(SESSION_ID, [
        {
          type: 'agent.event',
          sessionId: SESSION_ID,
          agentId: 'a-1',
          event: sub('tool.call.started', {
            turnId: 'st',
            step: 3,
            callId: 'x',
            name: 'Read',
            args: {},
            description: 'notes.txt',
            display: { kind: 'generic', summary: '' },
          }),
        },
      ]),
    );
    render(<Rows />);
    const tile = screen.getByRole('button', { name: 'alpha: Running' });
    expect(tile.textContent).toContain('Step 3 · Read: notes.txt');
  });
});
