import { describe, expect, it } from 'vitest';
import type { HookResultKind } from '#protocol';
import { reduce } from './session-slice';
import { eventsOf } from './test-events';
import { type ToolItem, emptyTranscript, transcriptSlice } from './transcript';

const display = { kind: 'generic' as const, summary: 'Read a.txt' };

describe('hook results in the transcript', () => {
  const ev = eventsOf();
  const ran = (result: HookResultKind, callId?: string, event: 'PreToolUse' | 'PostToolUse' | 'UserPromptSubmit' = 'PreToolUse') =>
    ev('hook.ran', {
      turnId: 't1',
      ...(callId ? { callId } : {}),
      event,
      command: 'audit.sh',
      source: 'project',
      result,
      message: 'ok',
      toolName: 'Read',
    });
  const started = ev('tool.call.started', { turnId: 't1', step: 1, callId: 'c1', name: 'Read', args: {}, description: 'Read a.txt', display });
  const result = ev('tool.call.result', { turnId: 't1', callId: 'c1', name: 'Read', isError: false, output: 'x', durationMs: 3 });

  it('hooks that changed nothing go on the call’s card, also when they ran before the card existed; no rows', () => {
    const t = reduce(transcriptSlice, emptyTranscript, [ran('allowed', 'c1'), started, ran('output', 'c1', 'PostToolUse'), result]);
    expect(t.items.map((i) => i.kind)).toEqual(['tool']);
    const card = t.items[0] as ToolItem;
    expect(card.hooks?.map((h) => h.text)).toEqual([
      'PreToolUse hook “audit.sh” (project settings) allowed Read: ok',
      'PostToolUse hook “audit.sh” (project settings) said: ok',
    ]);
    expect(card.status).toBe('done');
    expect(t.waitingHooks).toEqual({});
  });

  it('hooks that blocked, changed or failed get a full row, and no badge', () => {
    for (const kind of ['blocked', 'denied', 'changed', 'error', 'timeout'] as const) {
      const t = reduce(transcriptSlice, emptyTranscript, [ran(kind, 'c1'), started]);
      expect(t.items.map((i) => i.kind)).toEqual(['notice', 'tool']);
      expect((t.items[1] as ToolItem).hooks).toBeUndefined();
    }
  });

  it('quiet hooks with no tool call (a prompt hook, Stop) are one small line; a blocking one is a full row', () => {
    const stop = (result: HookResultKind, seq: number) => ({ ...ran(result, undefined, 'UserPromptSubmit'), seq });
    const t = reduce(transcriptSlice, emptyTranscript, [stop('output', 101), stop('context', 102), started, stop('output', 103), stop('blocked', 104)]);
    expect(t.items.map((i) => i.kind)).toEqual(['hooks', 'tool', 'hooks', 'notice']);
    expect(t.items[0]).toMatchObject({
      kind: 'hooks',
      turnId: 't1',
      hooks: [
        { text: 'UserPromptSubmit hook “audit.sh” (project settings) said: ok' },
        { text: 'UserPromptSubmit hook “audit.sh” (project settings) added context for the model: ok' },
      ],
    });
    expect(t.items[3]).toMatchObject({ kind: 'notice', level: 'warning', text: 'UserPromptSubmit hook “audit.sh” (project settings) blocked Read: ok' });
  });
});
