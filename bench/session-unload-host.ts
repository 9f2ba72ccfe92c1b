// A host process for bench/session-unload.bench.ts (run as its own process, so its RSS is its own):
// `baseline` opens only the small session; `unload` opens the large ones one after another in one window,
// switches to the small one, and measures before and after the idle unload. Prints one JSON line.
import { createNodeCore } from '../main/host/compose';
import { webHost } from '../main/host/hosts';

const [mode, home, workspace, unloadAfter, ...ids] = process.argv.slice(2);
const gc = (globalThis as { gc?: () => void }).gc;
const MiB = 1024 * 1024;

async function settle(): Promise<{ rss: number; heap: number }> {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const usage = process.memoryUsage();
  return { rss: usage.rss / MiB, heap: usage.heapUsed / MiB };
}

const core = createNodeCore({ home: home!, workspace: workspace!, host: webHost, unloadAfterMs: Number(unloadAfter) });
// Opening a session as the window does: the reply is serialised as the web host sends it.
const open = async (sessionId: string) => {
  core.show('window', sessionId);
  JSON.stringify({ id: 1, reply: { ok: true, result: await core.handlers.openSession({ sessionId }) } });
};
const small = ids.at(-1)!;
const result: Record<string, unknown> = {};
if (mode === 'baseline') {
  await open(small);
  result.shown = await settle();
} else {
  for (const id of ids) await open(id);
  result.before = await settle();
  result.loadedBefore = core.loadedSessionIds().length;
  const started = performance.now();
  while (core.loadedSessionIds().length > 1) await new Promise((resolve) => setTimeout(resolve, 20));
  result.unloadWaitMs = performance.now() - started;
  result.after = await settle();
  result.loadedAfter = core.loadedSessionIds();
}
await core.close();
process.stdout.write(JSON.stringify(result) + '\n');
process.exit(0);
