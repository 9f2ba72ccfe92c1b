import { readFile, rm, stat } from 'node:fs/promises';
import { PAGED_EVENT_TYPES } from '../protocol';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Session } from '../main/agent/infra/sessions/session';
import { LOG_FILE } from '../main/agent/infra/sessions/session';
import { tempDir } from '../test-support/harness';
import { generateSession } from './generate-session';
import { type BenchResult, median } from './types';

const MiB = 1024 * 1024;
const gc = (globalThis as { gc?: () => void }).gc;

/**
 * Long sessions on the host (issue 19): opening a session as a window does (load it, take what openSession
 * replies, serialise the reply as the web host does) at 500, 2,000 and 5,000 messages beside 2 messages;
 * and the memory held once three large sessions and a small one are open.
 */
export default async function sessionReplay(): Promise<BenchResult[]> {
  const home = await tempDir('deft-bench-home-');
  const workspace = await tempDir('deft-bench-ws-');
  const sizes = [2, 500, 2_000, 5_000];
  const dirs = new Map<number, string>();
  const logs = new Map<number, number>();
  for (const messages of sizes) {
    // A turn is a prompt and an answer (with a Read or an Edit in between), so two messages.
    const { dir } = await generateSession({ home, workspace, id: `bench-${messages}`, turns: messages / 2, toolCalls: messages > 2 });
    dirs.set(messages, dir);
    logs.set(messages, (await stat(join(dir, LOG_FILE))).size);
  }
  // The same 5,000 messages with tool events as they were recorded before they were slimmed (whole texts).
  const { dir: wholeDir } = await generateSession({ home, workspace, id: 'bench-whole', turns: 2_500, toolEvents: 'whole' });
  const wholeBytes = (await stat(join(wholeDir, LOG_FILE))).size;
  const metaOf = (messages: number) => ({ id: `bench-${messages}`, title: 't', workspace, createdAt: 0, updatedAt: 0, turns: messages / 2 });
  /** Load and reply, as openSession does for a window opening the session; the reply's length in bytes. */
  const open = async (messages: number, dir = dirs.get(messages)!) => {
    const { session } = await Session.load(dir, metaOf(messages), Date.now);
    const reply = JSON.stringify({ id: 1, reply: { ok: true, result: { session: session.summary(), ...session.eventsAfter(undefined), problems: [] } } });
    return { session, bytes: Buffer.byteLength(reply) };
  };
  const openTime = async (messages: number) =>
    median(messages >= 2_000 ? 3 : 5, async () => {
      const t0 = performance.now();
      await open(messages);
      return performance.now() - t0;
    });

  const small = await openTime(2);
  const rows: BenchResult[] = [];
  for (const messages of sizes.slice(1)) {
    const ms = await openTime(messages);
    const { bytes } = await open(messages);
    rows.push({
      name: `host: open a ${messages.toLocaleString('en-US')}-message session (reply ready)`,
      value: ms,
      unit: 'ms',
      baseline: { name: 'a 2-message session', value: small },
      note: `log ${(logs.get(messages)! / MiB).toFixed(1)} MiB, reply ${(bytes / MiB).toFixed(2)} MiB`,
    });
  }

  // openSession's `earlier` (the state the turns before the tail left), beside every state event before the tail (as before).
  for (const messages of [500, 5_000]) {
    const { session } = await open(messages);
    const tail = session.tail();
    const before = (await session.allEvents()).filter((e) => tail.before !== null && e.seq < tail.before && !PAGED_EVENT_TYPES.has(e.type));
    rows.push({
      name: `openSession's earlier, ${messages.toLocaleString('en-US')} messages`,
      value: Buffer.byteLength(JSON.stringify(tail.earlier)) / 1024,
      unit: 'KiB',
      baseline: { name: 'every state event before the tail (as before)', value: Buffer.byteLength(JSON.stringify(before)) / 1024 },
      note: `${tail.earlier.length} events vs ${before.length}`,
    });
  }

  // Tool events kept once: the log, the reply and the open beside the same session with whole-text tool events.
  const slimOpen = await openTime(5_000);
  const wholeOpen = await median(3, async () => {
    const t0 = performance.now();
    await open(5_000, wholeDir);
    return performance.now() - t0;
  });
  const wholeReply = (await open(5_000, wholeDir)).bytes;
  const slimReply = (await open(5_000)).bytes;
  rows.push({
    name: 'log of 5,000 messages, tool events kept once',
    value: logs.get(5_000)! / MiB,
    unit: 'MiB',
    baseline: { name: 'whole texts in tool events (as before)', value: wholeBytes / MiB },
    note: `reply ${(slimReply / MiB).toFixed(2)} vs ${(wholeReply / MiB).toFixed(2)} MiB`,
  });
  rows.push({
    name: 'open 5,000 messages, tool events kept once',
    value: slimOpen,
    unit: 'ms',
    baseline: { name: 'whole texts in tool events (as before)', value: wholeOpen },
  });
  const perTool = async (dir: string) => {
    const text = await readFile(join(dir, LOG_FILE), 'utf8');
    const bytes = (name: string) => {
      const lines = text.split('\n').filter((l) => l.includes('"type":"tool.call.') && l.includes(`"name":"${name}"`));
      return lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0) / (lines.length / 2);
    };
    return { read: bytes('Read'), edit: bytes('Edit') };
  };
  const [slimTool, wholeTool] = [await perTool(dirs.get(5_000)!), await perTool(wholeDir)];
  rows.push({
    name: 'log bytes per Read of a 70-line file (call + result)',
    value: slimTool.read,
    unit: 'B',
    baseline: { name: 'whole texts (as before)', value: wholeTool.read },
  });
  rows.push({
    name: 'log bytes per one-line Edit of it (call + result)',
    value: slimTool.edit,
    unit: 'B',
    baseline: { name: 'whole texts (as before)', value: wholeTool.edit },
  });

  // Replaying versus just reading and JSON-parsing the 5,000-message log.
  const parseOnly = await median(3, async () => {
    const t0 = performance.now();
    const text = await readFile(join(dirs.get(5_000)!, LOG_FILE), 'utf8');
    for (const line of text.split('\n')) if (line) JSON.parse(line);
    return performance.now() - t0;
  });
  const load = await median(3, async () => {
    const t0 = performance.now();
    await Session.load(dirs.get(5_000)!, metaOf(5_000), Date.now);
    return performance.now() - t0;
  });
  rows.push({
    name: 'Session.load of the 5,000-message log',
    value: load,
    unit: 'ms',
    baseline: { name: 'read + JSON.parse of every line', value: parseOnly },
  });

  // Memory: three large sessions opened, then a small one, all kept loaded (as the core keeps them).
  gc?.();
  const before = process.memoryUsage();
  const held: Session[] = [];
  for (const messages of [500, 2_000, 5_000, 2]) held.push((await open(messages)).session);
  gc?.();
  const after = process.memoryUsage();
  const heldEvents = held.reduce((n, s) => n + s.events.length, 0);
  rows.push({
    name: 'host heap after opening 500/2,000/5,000 then 2 messages',
    value: after.heapUsed / MiB,
    unit: 'MiB',
    baseline: { name: 'heap before opening them', value: before.heapUsed / MiB },
    note: `RSS ${(after.rss / MiB).toFixed(0)} MiB (before: ${(before.rss / MiB).toFixed(0)} MiB); ${heldEvents.toLocaleString('en-US')} events in memory`,
  });
  held.length = 0;
  await rm(home, { recursive: true, force: true });
  await rm(workspace, { recursive: true, force: true });
  return rows;
}
