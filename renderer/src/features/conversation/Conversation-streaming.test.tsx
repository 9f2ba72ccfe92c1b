import type * as ReactVirtual from '@tanstack/react-virtual';
import { render } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { arrive, openSession, sessionEvents } from '../../testing/session';
import { Conversation } from './Conversation';

// The list renders (and runs its virtualizer) once per render: counted by wrapping the virtualizer's hook.
const listRenders = vi.hoisted(() => ({ count: 0 }));
vi.mock('@tanstack/react-virtual', async (original) => {
  const real = await original<typeof ReactVirtual>();
  return {
    ...real,
    useVirtualizer: ((options) => {
      listRenders.count++;
      return real.useVirtualizer(options);
    }) as typeof real.useVirtualizer,
  };
});

describe('the conversation while an answer streams', () => {
  it('renders the answer with each delta, not the list: its rows stay as they were', () => {
    const e = sessionEvents();
    openSession([
      e('turn.started', { turnId: 't1', text: 'Explain the loader', attachments: [], origin: 'user' }),
      e('step.started', { turnId: 't1', step: 0 }),
      e('assistant.delta', { turnId: 't1', step: 0, text: 'The loader ' }),
    ]);
    // A window of a size (happy-dom lays nothing out): the virtualizer shows the rows that fit.
    vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(800);
    vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(600);
    const view = render(<Conversation />);
    const answer = () => view.getByRole('article', { name: 'Assistant message' });
    expect(answer().textContent).toContain('The loader');
    const before = listRenders.count;
    const words = ['reads ', 'the file ', 'once, ', '**keeps** ', 'what it ', 'needs', '.\n\nThen ', 'it ', 'passes ', '`limit` on.'];
    for (const word of words) arrive([e('assistant.delta', { turnId: 't1', step: 0, text: word })]);
    // Every delta is on screen...
    expect(answer().textContent).toContain('The loader reads the file once, keeps what it needs.');
    expect(answer().querySelector('strong')?.textContent).toBe('keeps');
    expect(answer().querySelector('code')?.textContent).toBe('limit');
    // ...without rendering the list again (before: once a delta).
    expect(listRenders.count - before).toBe(0);
    // A change the list shows (the answer ends: its toolbar) renders it.
    arrive([e('step.ended', { turnId: 't1', step: 0, finishReason: 'end_turn' }), e('turn.ended', { turnId: 't1', stopReason: 'end_turn', durationMs: 1000 })]);
    expect(listRenders.count - before).toBeGreaterThan(0);
    expect(answer().getAttribute('aria-busy')).toBe('false');
    expect(answer().textContent).toContain('passes limit on.');
  });
});
