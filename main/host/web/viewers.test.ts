import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createHarness, tempDir } from '#test-support/harness';
import { waitFor } from '#test-support/wait';
import { type WebHost, startWebHost } from './server';
import { webHost } from '../hosts';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness | null = null;
let host: WebHost | null = null;
afterEach(async () => {
  await host?.close();
  await h?.dispose();
  host = null;
  h = null;
});

function connect(web: WebHost): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${web.port}/ws?token=${web.token}`, { headers: { origin: `http://127.0.0.1:${web.port}` } });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

let nextId = 0;
function command(ws: WebSocket, name: string, input: unknown): Promise<{ ok: boolean; result?: unknown }> {
  const id = ++nextId;
  return new Promise((resolve) => {
    const onMessage = (data: Buffer) => {
      const message = JSON.parse(data.toString()) as { id?: number; reply?: { ok: boolean; result?: unknown } };
      if (message.id === id && message.reply) {
        ws.off('message', onMessage);
        resolve(message.reply);
      }
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ id, name, input }));
  });
}

describe('the web host tells the core which session each connection shows', () => {
  it('two connections show two sessions; when one closes, only its session is let go of', async () => {
    h = await createHarness({ host: webHost, unloadAfterMs: 5 });
    const hh = h;
    host = await startWebHost({ core: hh.core, rendererDir: await tempDir('deft-renderer-'), log: () => {} });
    const first = hh.session.id;
    const second = (await hh.core.handlers.createSession({})).session.id;
    const tabA = await connect(host);
    const tabB = await connect(host);
    // Each opens its session as a window does: its tail, then its tasks (which load it, if it was let go of meanwhile).
    expect(await command(tabA, 'openSession', { sessionId: first })).toMatchObject({ ok: true });
    expect(await command(tabA, 'listTasks', { sessionId: first })).toMatchObject({ ok: true });
    expect(await command(tabB, 'openSession', { sessionId: second })).toMatchObject({ ok: true });
    expect(await command(tabB, 'listTasks', { sessionId: second })).toMatchObject({ ok: true });

    // A session neither tab shows goes at a sweep; the two shown stay.
    const idle = (await hh.core.handlers.createSession({})).session.id;
    await waitFor(() => !hh.core.loadedSessionIds().includes(idle));
    expect(hh.core.loadedSessionIds().sort()).toEqual([first, second].sort());

    tabA.close();
    await waitFor(() => !hh.core.loadedSessionIds().includes(first));
    expect(hh.core.loadedSessionIds()).toEqual([second]);

    // The other tab switching sessions lets go of the one it showed; what it opens is loaded again (its tail is read
    // from the log first; the window then asks for its tasks, which loads it).
    expect(await command(tabB, 'openSession', { sessionId: first })).toMatchObject({ ok: true });
    expect(await command(tabB, 'listTasks', { sessionId: first })).toMatchObject({ ok: true });
    await waitFor(() => !hh.core.loadedSessionIds().includes(second));
    expect(hh.core.loadedSessionIds()).toEqual([first]);
    tabB.close();
  });

  it('a tab whose session another tab deletes shows none any more', async () => {
    h = await createHarness({ host: webHost, unloadAfterMs: 5 });
    const hh = h;
    host = await startWebHost({ core: hh.core, rendererDir: await tempDir('deft-renderer-'), log: () => {} });
    const doomed = (await hh.core.handlers.createSession({})).session.id;
    const tabA = await connect(host);
    const tabB = await connect(host);
    expect(await command(tabA, 'openSession', { sessionId: doomed })).toMatchObject({ ok: true });
    expect(await command(tabB, 'openSession', { sessionId: hh.session.id })).toMatchObject({ ok: true });
    expect(hh.core.shownSessionIds().sort()).toEqual([doomed, hh.session.id].sort());
    expect(await command(tabB, 'deleteSession', { sessionId: doomed })).toMatchObject({ ok: true });
    expect(hh.core.shownSessionIds()).toEqual([hh.session.id]);
    tabA.close();
    tabB.close();
  });
});
