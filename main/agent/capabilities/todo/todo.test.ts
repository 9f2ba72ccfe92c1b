import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { defaultCapabilities } from '../../capabilities';
import { DeftCore } from '#runtime/core';
import { reminders } from '#test-support/mock-steps';
import { createHarness, fastRetry } from '#test-support/harness';
import { cliHost } from '../../../host/hosts';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

const todo = (args: unknown) => ({ chunks: [{ toolCall: { name: 'TodoList', args: JSON.stringify(args) } }, { finish: 'tool_calls' as const }] });
const lastTool = (hh: Harness) =>
  String(
    hh.server.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool')
      .at(-1)!.content,
  );
const items = [
  { title: 'Read the parser', status: 'done' },
  { title: 'Fix the bug', status: 'in_progress' },
  { title: 'Add a test', status: 'pending' },
];

describe('TodoList', () => {
  it('replaces, reads and clears the list, telling the UI each time', async () => {
    h = await createHarness();
    h.server.enqueue(todo({ todos: items }));
    await h.run('plan');
    expect(lastTool(h)).toBe(
      'Todo list updated (1/3 done):\n[done] Read the parser\n[in_progress] Fix the bug\n[pending] Add a test\nMark each item done as soon as it is finished.',
    );
    expect(h.sessionEvents('todo.updated').at(-1)).toMatchObject({ items });

    h.server.enqueue(todo({}));
    await h.run('read');
    expect(lastTool(h)).toBe('[done] Read the parser\n[in_progress] Fix the bug\n[pending] Add a test');
    // TodoList's results told the model the list: no reminder repeats it, and the system prompt never changes.
    expect(h.server.requests.flatMap((r) => reminders(r.body.messages)).filter((r) => r.includes('todo list'))).toEqual([]);
    expect(new Set(h.server.requests.map((r) => JSON.stringify(r.body.messages[0])))).toHaveProperty('size', 1);

    h.server.enqueue(
      todo({
        todos: [
          { title: 'A', status: 'in_progress' },
          { title: 'B', status: 'in_progress' },
        ],
      }),
    );
    await h.run('two at once');
    expect(lastTool(h)).toContain('Keep exactly one item in_progress while you work (now 2).');

    h.server.enqueue(todo({ todos: [] }));
    await h.run('clear');
    expect(lastTool(h)).toBe('The todo list is cleared.');
    expect(h.sessionEvents('todo.updated').at(-1)).toMatchObject({ items: [] });
  });

  it('rejects empty titles and unknown statuses', async () => {
    h = await createHarness();
    h.server.enqueue(todo({ todos: [{ title: ' ', status: 'pending' }] }), todo({ todos: [{ title: 'x', status: 'started' }] }));
    await h.run('bad');
    const tools = h.server.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool')
      .map((m) => String(m.content));
    expect(tools[0]).toMatch(/^ERROR: Invalid arguments for TodoList: todos\.0\.title/);
    expect(tools[1]).toMatch(/^ERROR: Invalid arguments for TodoList/);
    expect(h.sessionEvents('todo.updated')).toHaveLength(0);
  });

  it('is persisted with the session and survives a restart', async () => {
    h = await createHarness();
    h.server.enqueue(todo({ todos: items }));
    await h.run('plan');
    await h.core.close();

    const core = new DeftCore({
      home: h.home,
      workspace: h.workspace,
      host: cliHost(),
      secrets: h.secrets,
      retry: fastRetry,
      capabilities: defaultCapabilities,
    });
    try {
      const opened = await core.handlers.openSession({ sessionId: h.session.id });
      const replayed = opened.events.filter((e): e is Extract<SessionEvent, { type: 'todo.updated' }> => e.type === 'todo.updated');
      expect(replayed.at(-1)!.items).toEqual(items);
      h.server.enqueue(todo({}));
      await core.handlers.sendPrompt({ sessionId: h.session.id, text: 'where was I?' });
      await core.turnDone(h.session.id);
      expect(lastTool(h)).toBe('[done] Read the parser\n[in_progress] Fix the bug\n[pending] Add a test');
    } finally {
      await core.close();
    }
  });
});
