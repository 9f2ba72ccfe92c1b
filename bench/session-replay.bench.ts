import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Session } from '../main/agent/infra/sessions/session';
import { LOG_FILE } from '../main/agent/infra/sessions/session';
import { tempDir } from '../main/agent/test-support/harness';
import { generateSession } from './generate-session';
import { type BenchResult, median } from './types';

/** Replaying a 10,000-event session versus just reading and JSON-parsing its lines. */
export default async function sessionReplay(): Promise<BenchResult[]> {
  const home = await tempDir('deft-bench-home-');
  const workspace = await tempDir('deft-bench-ws-');
  const { events, dir } = await generateSession({ home, workspace, id: 'bench-replay', turns: 770 });
  const meta = { id: 'bench-replay', title: 't', workspace, createdAt: 0, updatedAt: 0, turns: 770 };
  const replay = await median(5, async () => {
    const t0 = performance.now();
    await Session.load(dir, meta, Date.now);
    return performance.now() - t0;
  });
  const parseOnly = await median(5, async () => {
    const t0 = performance.now();
    const text = await readFile(join(dir, LOG_FILE), 'utf8');
    for (const line of text.split('\n')) if (line) JSON.parse(line);
    return performance.now() - t0;
  });
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const held = await Session.load(dir, meta, Date.now);
  gc?.();
  const heldMb = (process.memoryUsage().heapUsed - before) / 1024 / 1024;
  const size = (await readFile(join(dir, LOG_FILE))).length / 1024 / 1024;
  await rm(home, { recursive: true, force: true });
  await rm(workspace, { recursive: true, force: true });
  return [
    {
      name: `session replay (${events.toLocaleString('en-US')} events, ${size.toFixed(1)} MiB log)`,
      value: replay,
      unit: 'ms',
      baseline: { name: 'read + JSON.parse of the same log', value: parseOnly },
      note: `~${heldMb.toFixed(1)} MiB heap for the loaded session (${held.session.events.length} events)`,
    },
  ];
}
