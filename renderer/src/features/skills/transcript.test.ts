import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../../protocol';
import { applyEvents, emptyTranscript } from '../../stores/transcript';

describe('transcript: skill activations', () => {
  it('adds a skill card after the prompt that ran it', () => {
    const base = { sessionId: 's', at: 0 };
    const events: SessionEvent[] = [
      { ...base, seq: 1, type: 'turn.started', turnId: 't', text: '/review src', attachments: [], origin: 'skill' },
      { ...base, seq: 2, type: 'skill.activated', turnId: 't', name: 'review', args: 'src', trigger: 'user', source: 'builtin', dir: '/app/skills/review', content: 'Review src.' },
    ];
    const state = applyEvents(emptyTranscript, events);
    expect(state.items.map((i) => i.kind)).toEqual(['user', 'skill']);
    expect(state.items[1]).toEqual({ kind: 'skill', id: 'skill2', turnId: 't', name: 'review', args: 'src', trigger: 'user', source: 'builtin', content: 'Review src.' });
  });
});
