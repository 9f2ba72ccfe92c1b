import { describe, expect, it } from 'vitest';
import type { CommandHandlers } from '../agent/contract/commands';
import { CommandError } from '../agent/contract/errors';
import { dispatchCommand } from './dispatch';

const handlers = {
  listSessions: async () => ({ sessions: [] }),
  cancelTurn: async () => {
    throw new CommandError('not_found', 'No such session.');
  },
  deleteSession: async () => {
    throw new Error('disk on fire');
  },
} as unknown as CommandHandlers;

describe('dispatchCommand', () => {
  it('runs a valid command', async () => {
    expect(await dispatchCommand(handlers, 'listSessions', {})).toEqual({ ok: true, result: { sessions: [] } });
  });
  it('rejects an unknown command and input that does not match the protocol', async () => {
    expect(await dispatchCommand(handlers, 'rmrf', {})).toMatchObject({ ok: false, error: { code: 'invalid_request', message: 'Unknown command "rmrf".' } });
    expect(await dispatchCommand(handlers, '__proto__', {})).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    const reply = await dispatchCommand(handlers, 'sendPrompt', { sessionId: 1, text: 'x', extra: true });
    expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    expect(!reply.ok && reply.error.message).toMatch(/sessionId: .*expected string/i);
  });
  it('turns thrown errors into error replies', async () => {
    expect(await dispatchCommand(handlers, 'cancelTurn', { sessionId: 's' })).toEqual({ ok: false, error: { code: 'not_found', message: 'No such session.' } });
    const logged: string[] = [];
    expect(await dispatchCommand(handlers, 'deleteSession', { sessionId: 's' }, (m) => logged.push(m))).toMatchObject({
      ok: false,
      error: { code: 'internal', message: 'deleteSession failed: disk on fire' },
    });
    expect(logged[0]).toContain('disk on fire');
  });
});
