import type { SessionEvent } from '../protocol';
import { agentsCapability, agentsCapabilityWith } from '../main/agent/capabilities/agents/capability';
import { SWARM_LIMITS } from '../main/agent/capabilities/agents/swarm-scheduler';
import { createHarness, testCapabilities } from '../test-support/harness';
import { callChunk, textReply, toolStep } from '../test-support/mock-steps';
import type { BenchResult } from './types';

const ITEMS = 128;
const RAMP_ITEMS = 20;
/** Long enough that no sub-agent is asked to expand its answer: one model request per item, as in the baseline. */
const ANSWER = `Checked. ${'Nothing to report for this item; every check passed as expected. '.repeat(4)}`;

const capabilities = (limits: Partial<typeof SWARM_LIMITS>) =>
  testCapabilities.map((f) => (f === agentsCapability ? agentsCapabilityWith({ swarmLimits: limits }) : f));

function gcHeap(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

/** A swarm of `count` trivial items (each sub-agent answers at once); its wall time and the heap it leaves behind. */
async function swarm(count: number, limits: Partial<typeof SWARM_LIMITS>): Promise<{ ms: number; heapPerAgent: number; completed: number }> {
  const h = await createHarness({ capabilities: capabilities(limits) });
  try {
    h.server.fallback = () => textReply(ANSWER);
    // A small swarm first, so code loaded and compiled on first use is not counted against the measured one.
    h.server.enqueue(
      toolStep(callChunk('AgentSwarm', { description: 'warm up', prompt_template: 'WARM {{item}}', items: ['a', 'b', 'c'], subagent_type: 'plan' })),
      textReply('warm'),
    );
    await h.run('warm up');
    const items = Array.from({ length: count }, (_, i) => `item-${i}`);
    h.server.enqueue(
      toolStep(callChunk('AgentSwarm', { description: 'check items', prompt_template: 'BENCH {{item}}', items, subagent_type: 'plan' })),
      textReply('done'),
    );
    h.server.requests.length = 0;
    h.events.length = 0;
    const before = gcHeap();
    const started = performance.now();
    await h.run('swarm');
    const ms = performance.now() - started;
    const last = h.sessionEvents('swarm.updated').at(-1) as Extract<SessionEvent, { type: 'swarm.updated' }> | undefined;
    // What the test harness itself records (every request, every event) is not Deft's to keep.
    h.server.requests.length = 0;
    h.events.length = 0;
    const heapPerAgent = (gcHeap() - before) / count;
    return { ms, heapPerAgent, completed: last?.progress.completed ?? 0 };
  } finally {
    await h.dispose();
  }
}

/** The same work without delegation: `count` turns, one after another, each a single model step. */
async function sequentialTurns(count: number): Promise<number> {
  const h = await createHarness();
  try {
    h.server.fallback = () => textReply(ANSWER);
    const started = performance.now();
    for (let i = 0; i < count; i++) await h.run(`BENCH item-${i}`);
    return performance.now() - started;
  } finally {
    await h.dispose();
  }
}

export default async function run(): Promise<BenchResult[]> {
  const sequential = await sequentialTurns(ITEMS);
  const free = await swarm(ITEMS, { launchIntervalMs: 0, initialBurst: ITEMS });
  // The reference pacing (5 at once, then one every 700 ms): what it adds beyond its own spacing is overhead.
  const paced = await swarm(RAMP_ITEMS, {});
  const spacing = (RAMP_ITEMS - SWARM_LIMITS.initialBurst) * SWARM_LIMITS.launchIntervalMs;
  const itemMs = free.ms / ITEMS;
  return [
    {
      name: `AgentSwarm: ${ITEMS} trivial items, unpaced`,
      value: free.ms,
      unit: 'ms',
      baseline: { name: `${ITEMS} sequential one-step turns`, value: sequential },
      note: `${free.completed}/${ITEMS} completed; ${(free.heapPerAgent / 1024).toFixed(1)} KiB heap per idle finished sub-agent`,
    },
    {
      name: `AgentSwarm: ${RAMP_ITEMS} items, reference pacing`,
      value: paced.ms,
      unit: 'ms',
      baseline: { name: 'its launch spacing alone', value: spacing },
      note: `scheduling overhead ≈ ${((paced.ms - spacing) / RAMP_ITEMS).toFixed(1)} ms per item (one unpaced item: ${itemMs.toFixed(1)} ms)`,
    },
  ];
}
