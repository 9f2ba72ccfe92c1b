import { describe, expect, it } from 'vitest';
import type { SessionEventOf } from '#protocol';
import { approvalAnswer, approvalOptions } from './permissions';
import { promptParts } from './prompt';
import { diffContent } from './tool-calls';
import { parseMode } from './modes';

const request = (over: Partial<SessionEventOf<'approval.requested'>> = {}): SessionEventOf<'approval.requested'> => ({
  type: 'approval.requested',
  sessionId: 's',
  seq: 1,
  at: 0,
  turnId: 't',
  requestId: 'r1',
  kind: 'tool',
  callId: 'c1',
  toolName: 'Bash',
  description: 'Run npm test',
  display: { kind: 'command', command: 'npm test' },
  reason: 'ask mode',
  approvalRule: 'Bash(npm test)',
  ...over,
});

describe('approvals as permission requests', () => {
  it('offers once, session and always only where a rule can be stored', () => {
    expect(approvalOptions(request()).map((o) => o.optionId)).toEqual(['once', 'session', 'always', 'reject']);
    const { approvalRule: _, ...withoutRule } = request();
    expect(approvalOptions(withoutRule as SessionEventOf<'approval.requested'>).map((o) => o.optionId)).toEqual(['once', 'reject']);
  });

  it('approves only a choice that was offered; anything else is a refusal', () => {
    expect(approvalAnswer(request(), { outcome: 'selected', optionId: 'session' })).toEqual({ decision: 'approve', scope: 'session' });
    expect(approvalAnswer(request(), { outcome: 'selected', optionId: 'reject' })).toEqual({ decision: 'reject' });
    expect(approvalAnswer(request(), { outcome: 'cancelled' }).decision).toBe('reject');
    expect(approvalAnswer(request(), null).decision).toBe('reject');
    // A hostile client naming an option it was not offered (here: "always" where no rule can be stored).
    const { approvalRule: _, ...withoutRule } = request();
    expect(approvalAnswer(withoutRule as SessionEventOf<'approval.requested'>, { outcome: 'selected', optionId: 'always' }).decision).toBe('reject');
    expect(approvalAnswer(request(), { outcome: 'selected', optionId: '__proto__' }).decision).toBe('reject');
  });

  it('answers a plan review with the option picked, or keeps planning', () => {
    const plan = request({ kind: 'plan_review', display: { kind: 'plan_review', plan: '1. do it', options: [{ label: 'Go', description: '' }] } });
    expect(approvalAnswer(plan, { outcome: 'selected', optionId: 'plan:0' })).toEqual({ decision: 'approve', scope: 'once', selectedLabel: 'Go' });
    expect(approvalAnswer(plan, { outcome: 'selected', optionId: 'revise' }).decision).toBe('revise');
  });
});

describe('prompts', () => {
  it('puts embedded resources after the message, links as mentions, and refuses audio and unknown images', () => {
    const parts = promptParts([
      { type: 'text', text: 'Fix' },
      { type: 'resource_link', uri: 'file:///w/a%20b.ts', name: 'a b.ts' },
      { type: 'resource', resource: { uri: 'file:///w/c.ts', text: 'const x = ```;' } },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    ]);
    expect(parts.text).toBe('Fix @/w/a b.ts\n\nContext from the editor (/w/c.ts):\n````\nconst x = ```;\n````');
    expect(parts.images).toEqual([{ name: 'image-1.png', data: 'AAAA' }]);
    expect(() => promptParts([{ type: 'audio', data: 'AA', mimeType: 'audio/wav' }])).toThrow(/audio/);
    expect(() => promptParts([{ type: 'image', data: 'AA', mimeType: 'image/tiff' }])).toThrow(/PNG/);
  });
});

describe('diffs and modes', () => {
  it('makes ACP diff content from hunks; a new file has no old text', () => {
    const edit = diffContent(
      { kind: 'diff', path: 'a.txt', hunks: [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [' keep', '-old', '+new'] }] },
      '/w',
    );
    expect(edit).toEqual({ type: 'diff', path: '/w/a.txt', oldText: 'keep\nold', newText: 'keep\nnew' });
    const created = diffContent({ kind: 'diff', path: '/abs/b.txt', hunks: [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 1, lines: ['+hi'] }] }, '/w');
    expect(created).toEqual({ type: 'diff', path: '/abs/b.txt', oldText: null, newText: 'hi' });
  });

  it('knows Deft’s modes and no others', () => {
    expect(parseMode('plan')).toEqual({ plan: true });
    expect(parseMode('yolo')).toEqual({ plan: false, permission: 'yolo' });
    expect(parseMode('bypassPermissions')).toBeNull();
  });
});
