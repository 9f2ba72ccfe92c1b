import { describe, expect, it } from 'vitest';
import { DeftError, appEventSchema, commandNames, commandSchemas, createBridge, eventHandlerName, eventTypeNames, sessionEventSchema } from './index';

describe('protocol', () => {
  it('lists every command and event type by name (the zod-free lists match the schemas)', () => {
    expect([...commandNames].sort()).toEqual(Object.keys(commandSchemas()).sort());
    const schemaTypes = [...sessionEventSchema().options, ...appEventSchema().options].map((o) => o.shape.type.value);
    expect([...eventTypeNames].sort()).toEqual(schemaTypes.sort());
  });

  it('derives onX handler names from event types', () => {
    expect(eventHandlerName('tool.call.started')).toBe('onToolCallStarted');
    expect(eventHandlerName('usage')).toBe('onUsage');
  });

  it('builds a bridge whose commands unwrap replies and whose onX handlers filter events', async () => {
    const listeners = new Set<(e: never) => void>();
    const bridge = createBridge({
      invoke: async (name) =>
        name === 'listSessions' ? { ok: true, result: { sessions: [] } } : { ok: false, error: { code: 'busy', message: 'A turn is running.' } },
      subscribe: (cb) => {
        listeners.add(cb);
        return () => listeners.delete(cb);
      },
    });
    expect(await bridge.listSessions()).toEqual({ sessions: [] });
    const failure = await bridge.cancelTurn({ sessionId: 'x' }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(DeftError);
    expect(failure).toMatchObject({ code: 'busy', detail: 'A turn is running.' });
    const seen: string[] = [];
    const off = bridge.onTurnEnded((e) => seen.push(e.turnId));
    for (const l of listeners) l({ type: 'turn.started', turnId: 'a' } as never);
    for (const l of listeners) l({ type: 'turn.ended', turnId: 'b' } as never);
    off();
    for (const l of listeners) l({ type: 'turn.ended', turnId: 'c' } as never);
    expect(seen).toEqual(['b']);
  });

  it('recovers the error code from a message-only error (Electron contextBridge)', () => {
    const e = DeftError.from(new Error('Error invoking remote method: [not_found] Session x does not exist.'));
    expect(e.code).toBe('not_found');
    expect(e.detail).toBe('Session x does not exist.');
  });
});
