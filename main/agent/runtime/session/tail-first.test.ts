import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { createHarness } from '#test-support/harness';
import { textReply } from '#test-support/mock-steps';
import { waitFor } from '#test-support/wait';
import type * as TailViewModule from '#infra/sessions/tail-view';
import type * as SessionModule from '#infra/sessions/session';
import { LOG_FILE } from '#infra/sessions/session';
import { webHost } from '../../../host/hosts';

// Which path built a window's first view of a session: every view readTailView gave (the log's tail, read from its
// newest snapshot), and how many times a session was read whole (Session.load). Counted, not timed: a short
// session may finish loading before the reply reaches the test.
const reads = vi.hoisted(() => ({ tailViews: [] as unknown[], full: 0 }));
vi.mock('#infra/sessions/tail-view', async (importOriginal) => {
  const real = await importOriginal<typeof TailViewModule>();
  return {
    ...real,
    readTailView: async (...args: Parameters<typeof real.readTailView>) => {
      const view = await real.readTailView(...args);
      if (view) reads.tailViews.push(view);
      return view;
    },
  };
});
vi.mock('#infra/sessions/session', async (importOriginal) => {
  const real = await importOriginal<typeof SessionModule>();
  const load = real.Session.load.bind(real.Session);
  real.Session.load = (...args: Parameters<typeof real.Session.load>) => {
    reads.full++;
    return load(...args);
  };
  return real;
});

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness | null = null;
afterEach(async () => {
  await h?.dispose();
  h = null;
});

const loaded = (hh: Harness, id: string) => hh.core.loadedSessionIds().includes(id);

/** The harness's session after 16 turns, as a window showed it, and the window now showing another one (it is let go of). */
async function longSessionLeft(hh: Harness): Promise<{ id: string; before: Awaited<ReturnType<Harness['core']['handlers']['openSession']>> }> {
  const id = hh.session.id;
  hh.core.show('window', id);
  for (let n = 1; n <= 16; n++) {
    hh.server.enqueue(textReply(`Answer ${n}.`));
    await hh.core.handlers.sendPrompt({ sessionId: id, text: `question ${n}` });
    await hh.core.turnDone(id);
  }
  const before = await hh.core.handlers.openSession({ sessionId: id });
  const other = (await hh.core.handlers.createSession({})).session.id;
  hh.core.show('window', other);
  return { id, before };
}

it("a long session let go of opens again from its tail first (its log's snapshot), the same as a full read, and loads when asked", async () => {
  h = await createHarness({ host: webHost, unloadAfterMs: 5 });
  const hh = h;
  const { id, before } = await longSessionLeft(hh);
  await waitFor(() => !loaded(hh, id));
  reads.tailViews.length = 0;
  reads.full = 0;

  hh.core.show('window', id);
  // The window asks for the session's tasks at once (which loads it).
  const [after, tasks] = await Promise.all([hh.core.handlers.openSession({ sessionId: id }), hh.core.handlers.listTasks({ sessionId: id })]);
  expect(tasks.tasks).toEqual([]);
  // Answered from the log's tail (the very view readTailView gave), the same as the full read gives.
  expect(reads.tailViews).toHaveLength(1);
  expect(after.events).toBe((reads.tailViews[0] as TailViewModule.TailView).events);
  expect(after).toEqual(before);
  await waitFor(() => loaded(hh, id));
  expect(reads.full).toBe(1);
  expect(await hh.core.handlers.openSession({ sessionId: id })).toEqual(before);
  // The model reads the whole conversation on the next turn.
  hh.server.enqueue(textReply('Answer 17.'));
  await hh.core.handlers.sendPrompt({ sessionId: id, text: 'question 17' });
  await hh.core.turnDone(id);
  const messages = hh.server.requests.at(-1)!.body.messages as Array<{ role: string; content: unknown }>;
  expect(messages.filter((m) => m.role === 'user').length).toBeGreaterThanOrEqual(17);
  expect(reads.full).toBe(1);
});

it('a long session whose log has no snapshot opens from its tail too, without being loaded; loaded when asked, its log gets a snapshot', async () => {
  h = await createHarness({ host: webHost, unloadAfterMs: 5 });
  const hh = h;
  const { id, before } = await longSessionLeft(hh);
  // Let go of: its log gets a snapshot (written last).
  const group = readdirSync(join(hh.home, 'sessions')).find((name) => existsSync(join(hh.home, 'sessions', name, id)))!;
  const path = join(hh.home, 'sessions', group, id, LOG_FILE);
  await waitFor(() => !loaded(hh, id) && readFileSync(path, 'utf8').includes('\n{"r":"snapshot",'));
  await hh.core.handlers.listSessions({});
  // As a log from before snapshots.
  const withoutSnapshots = (await readFile(path, 'utf8'))
    .split('\n')
    .filter((line) => !line.startsWith('{"r":"snapshot",'))
    .join('\n');
  await writeFile(path, withoutSnapshots);
  reads.tailViews.length = 0;
  reads.full = 0;

  hh.core.show('window', id);
  const after = await hh.core.handlers.openSession({ sessionId: id });
  expect(reads.tailViews).toHaveLength(1);
  expect(after).toEqual(before);
  // Nothing else asked for the session: it is not read whole.
  await hh.core.handlers.listSessions({});
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(reads.full).toBe(0);
  expect(loaded(hh, id)).toBe(false);
  // The window asks for its tasks once the tail is shown: loaded then, and its log gets a snapshot.
  expect((await hh.core.handlers.listTasks({ sessionId: id })).tasks).toEqual([]);
  expect(reads.full).toBe(1);
  await waitFor(() => readFileSync(path, 'utf8').includes('\n{"r":"snapshot",'));
  expect((await readFile(path, 'utf8')).startsWith(withoutSnapshots)).toBe(true);
});
