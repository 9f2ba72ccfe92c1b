import { describe, expect, it, vi } from 'vitest';
import { onStopSignals } from './stop-signals';

describe('stop signals', () => {
  it('handles SIGINT, SIGTERM and SIGHUP (so running commands are stopped before exit) until removed', () => {
    const handler = vi.fn();
    const remove = onStopSignals(handler);
    try {
      process.emit('SIGTERM', 'SIGTERM');
      process.emit('SIGHUP', 'SIGHUP');
      process.emit('SIGINT', 'SIGINT');
      expect(handler.mock.calls.map(([signal]) => signal)).toEqual(['SIGTERM', 'SIGHUP', 'SIGINT']);
    } finally {
      remove();
    }
    expect(process.listeners('SIGTERM')).not.toContain(handler);
    expect(process.listeners('SIGHUP')).not.toContain(handler);
  });
});
