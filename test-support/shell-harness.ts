import type { AppEvent, SessionEvent } from '../protocol';
import { type ShellCapabilityOptions, shellCapability } from '../main/agent/capabilities/shell/capability';
import type { CoreOptions } from '../main/agent/runtime/core';
import type { ResolvedCall } from '../main/agent/contract/calls';
import { createHarness } from './harness';
import { eventually } from './processes';

export type Harness = Awaited<ReturnType<typeof createHarness>>;
type ToolResultEvent = Extract<SessionEvent, { type: 'tool.call.result' }>;

/** A harness whose core has the shell/background capability (fast kill grace, short quiet time). */
export function createTasksHarness(options: ShellCapabilityOptions = {}, core: Partial<CoreOptions> = {}) {
  return createHarness({ capabilities: [shellCapability({ killGraceMs: 500, quietAfterMs: 300, ...options })], ...core });
}

/** A tasks harness with a permission-layer stand-in that records every resolved call (and allows it). */
export function createSpyHarness(onCall: (call: ResolvedCall) => void, core: Partial<CoreOptions> = {}) {
  return createHarness({ capabilities: [shellCapability(), () => ({ name: 'spy', authorize: async (_s, call) => (onCall(call), undefined) })], ...core });
}

let calls = 0;

/** Script one tool call (then a short answer), run the turn, and return the result event and what the model read. */
export async function callTool(h: Harness, name: string, args: unknown): Promise<{ result: ToolResultEvent; content: string; callId: string }> {
  const callId = `call_${++calls}`;
  h.server.enqueue(
    { chunks: [{ toolCall: { id: callId, name, args: JSON.stringify(args) } }, { finish: 'tool_calls' }] },
    { chunks: [{ text: 'ok' }, { finish: 'stop' }] },
  );
  await h.run(`please run ${name}`);
  const result = h.sessionEvents('tool.call.result').find((e) => (e as ToolResultEvent).callId === callId) as ToolResultEvent;
  const message = h.server.requests.flatMap((r) => r.body.messages).find((m) => m.role === 'tool' && m.tool_call_id === callId);
  const content = typeof message?.content === 'string' ? message.content : JSON.stringify(message?.content ?? '');
  return { result, content, callId };
}

/** App events of one type, as recorded by the harness. */
export function appEvents<T extends AppEvent['type']>(h: Harness, type: T): Array<Extract<AppEvent, { type: T }>> {
  return h.events.filter((e): e is Extract<AppEvent, { type: T }> => e.type === type);
}

/** Wait until the session is idle (no turn running), e.g. after a notification turn started on its own. */
export async function settle(h: Harness, ms = 8_000): Promise<void> {
  await eventually(async () => {
    await h.core.turnDone(h.session.id);
    const { sessions } = await h.core.handlers.listSessions({});
    if (sessions.find((s) => s.id === h.session.id)?.running) throw new Error('still running');
  }, ms);
}

/** The text of every user message (prompts, notifications) in the latest model request. */
export function lastRequestText(h: Harness): string {
  return h.server.requests
    .at(-1)!
    .body.messages.filter((m) => m.role === 'user')
    .map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)))
    .join('\n\n');
}
