import { describe, expect, it } from 'vitest';
import { modesSlice } from './modes';
import { reduce } from './session-slice';
import { eventsOf } from './test-events';
import { emptyTranscript, transcriptSlice } from './transcript';

describe('permission mode and plan mode from events', () => {
  const ev = eventsOf();
  const events = [
    ev('permission.mode.changed', { mode: 'yolo', previous: 'ask' }),
    ev('plan.mode.changed', { plan: { active: true, planId: 'p', path: '/p.md' } }),
    ev('permission.mode.changed', { mode: 'accept-edits', previous: 'yolo' }),
    ev('plan.mode.changed', { plan: { active: false, planId: 'p', path: '/p.md' } }),
  ];

  it('keeps the latest of each; none until the session switches (the default mode applies)', () => {
    expect(modesSlice.empty).toEqual({ permission: null, plan: null });
    expect(reduce(modesSlice, modesSlice.empty, events.slice(0, 2))).toEqual({ permission: 'yolo', plan: { active: true, planId: 'p', path: '/p.md' } });
    expect(reduce(modesSlice, modesSlice.empty, events)).toMatchObject({ permission: 'accept-edits', plan: { active: false } });
  });

  it('notes every switch in the transcript', () => {
    const t = reduce(transcriptSlice, emptyTranscript, events);
    expect(t.items.map((i) => (i.kind === 'notice' ? i.text : i.kind))).toEqual([
      'Permission mode: Yolo',
      'Plan mode on',
      'Permission mode: Accept edits',
      'Plan mode off',
    ]);
    expect(t.items[0]).toEqual({ kind: 'notice', id: 'mode1', level: 'info', text: 'Permission mode: Yolo' });
  });
});
