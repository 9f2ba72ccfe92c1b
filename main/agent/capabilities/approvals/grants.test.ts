import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { standInTools } from '#test-support/stand-in-tools';
import { createHarness } from '#test-support/harness';
import { callChunk, toolStep } from '#test-support/mock-steps';
import { waitFor } from '#test-support/wait';
import { webHost } from '../../../host/hosts';

type Harness = Awaited<ReturnType<typeof createHarness>>;
type Requested = Extract<SessionEvent, { type: 'approval.requested' }>;
let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

const pending = (count: number) =>
  waitFor(() => h.sessionEvents('approval.requested').length >= count && (h.sessionEvents('approval.requested')[count - 1] as Requested));

it('lists "allow for session" grants; a revoked one asks again at the next call', async () => {
  h = await createHarness({ host: webHost, permissionMode: 'ask', tools: () => standInTools() });
  const sessionId = h.session.id;
  expect(await h.core.handlers.listSessionGrants({ sessionId })).toEqual({ rules: [], domains: [] });
  h.server.enqueue(toolStep(callChunk('Write', { path: 'a.txt', content: '1' })), toolStep(callChunk('Write', { path: 'a.txt', content: '2' })));
  await h.core.handlers.sendPrompt({ sessionId, text: 'write twice' });
  const first = await pending(1);
  await h.core.handlers.answerApproval({ sessionId, requestId: first.requestId, answer: { decision: 'approve', scope: 'session' } });
  await h.core.turnDone(sessionId);
  // The second write ran without asking: the grant covered it.
  expect(h.sessionEvents('approval.requested')).toHaveLength(1);
  expect(await readFile(join(h.workspace, 'a.txt'), 'utf8')).toBe('2');
  const rule = first.approvalRule!;
  expect(await h.core.handlers.listSessionGrants({ sessionId })).toEqual({ rules: [rule], domains: [] });

  expect(await h.core.handlers.revokeSessionGrant({ sessionId, kind: 'rule', value: rule })).toEqual({ rules: [], domains: [] });
  await expect(h.core.handlers.revokeSessionGrant({ sessionId, kind: 'rule', value: rule })).rejects.toMatchObject({ code: 'not_found' });

  h.server.enqueue(toolStep(callChunk('Write', { path: 'a.txt', content: '3' })));
  await h.core.handlers.sendPrompt({ sessionId, text: 'write again' });
  const again = await pending(2);
  expect(again.approvalRule).toBe(rule);
  await h.core.handlers.answerApproval({ sessionId, requestId: again.requestId, answer: { decision: 'reject' } });
  await h.core.turnDone(sessionId);
  expect(await readFile(join(h.workspace, 'a.txt'), 'utf8')).toBe('2');
});
