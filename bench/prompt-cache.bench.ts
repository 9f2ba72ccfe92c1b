import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SessionEventOf, Usage } from '../protocol';
import type { MockReply, RecordedRequest } from '../test-support/mock-model-server';
import { prefixBreak, prefixBreaks } from '../test-support/request-prefix';
import { defaultCapabilities } from '../main/agent/capabilities';
import type { CapabilityFactory } from '../main/agent/contract/capability';
import { createHarness } from '../test-support/harness';
import { callChunk, textReply, toolStep } from '../test-support/mock-steps';
import type { BenchResult } from './types';

const STEPS = 50;

const todo = (n: number) =>
  callChunk('TodoList', {
    todos: [
      { title: `Step ${n}`, status: 'in_progress' },
      { title: `Step ${n + 1}`, status: 'pending' },
      { title: 'Earlier work', status: 'done' },
    ],
  });
const read = (path: string) => callChunk('Read', { path });
const glob = () => callChunk('Glob', { pattern: '**/*.md' });
const write = (n: number) => callChunk('Write', { path: 'notes.md', content: `# Notes\n\nRevision ${n}.\n` });
const background = (word: string) => callChunk('Bash', { command: `sleep 0.3; echo ${word}`, run_in_background: true, description: `print ${word}` });
const wait = () => callChunk('Bash', { command: 'sleep 1', description: 'wait a second' });

/**
 * The scripted session: request n (1-based) gets reply n. A TodoList update every 3 steps; two
 * background tasks whose notifications arrive while a later step waits; a skill edited and the
 * permission mode switched between turns; a goal that runs continuation turns until UpdateGoal.
 */
function script(): MockReply[] {
  const steps: Array<MockReply | null> = [
    /* 1 */ null,
    toolStep(background('first')),
    toolStep(wait()),
    /* 4 */ null,
    toolStep(glob()),
    textReply('Set up.'),
    /* 7 */ null,
    toolStep(write(1)),
    toolStep(read('notes.md')),
    /* 10 */ null,
    toolStep(background('second')),
    toolStep(wait()),
    /* 13 */ null,
    textReply('Carried on.'),
    /* 15 */ toolStep(callChunk('CreateGoal', { objective: 'Document the workspace', completionCriterion: 'notes.md lists every file' })),
    /* 16 */ null,
    toolStep(read('notes.md')),
    textReply('Goal started.'),
    /* 19 */ null,
    toolStep(glob()),
    toolStep(read('notes.md')),
    /* 22 */ null,
    textReply('Goal turn 1 done.'),
    /* 24 */ toolStep(read('notes.md')),
    /* 25 */ null,
    toolStep(write(2)),
    toolStep(read('notes.md')),
    /* 28 */ null,
    textReply('Goal turn 2 done.'),
    /* 30 */ toolStep(glob()),
    /* 31 */ null,
    toolStep(read('notes.md')),
    toolStep(glob()),
    /* 34 */ null,
    toolStep(write(3)),
    textReply('Goal turn 3 done.'),
    /* 37 */ null,
    toolStep(read('notes.md')),
    toolStep(glob()),
    /* 40 */ null,
    toolStep(read('notes.md')),
    /* 42 */ toolStep(callChunk('UpdateGoal', { status: 'complete', note: 'notes.md lists every file.' })),
    /* 43 */ null,
    toolStep(read('notes.md')),
    textReply('Goal done.'),
    /* 46 */ null,
    toolStep(glob()),
    toolStep(read('notes.md')),
    /* 49 */ null,
    textReply('Wrapped up.'),
  ];
  if (steps.length !== STEPS) throw new Error(`the script has ${steps.length} steps, not ${STEPS}`);
  return steps.map((step, i) => step ?? toolStep(todo(i + 1)));
}

/** The mock acts like a prefix cache (cached = what a request shares with the one before it): the share of input tokens it served. */
function cachedShare(usage: Usage | undefined): string {
  if (!usage?.inputTokens || usage.cachedTokens === undefined) return 'no cache figures';
  return `${Math.round((usage.cachedTokens / usage.inputTokens) * 100)} % of ${usage.inputTokens.toLocaleString('en-US')} input tokens served from the (simulated) prompt cache`;
}

const skill = (description: string) => `---\nname: demo\ndescription: ${description}\n---\n\nDo the demo thing.\n`;

/**
 * The capabilities, each one's facts recorded as the runtime reads them (before every model step):
 * `current` holds what each key says now, so the facts behind a request are known when it arrives.
 */
function recordingFacts(current: Map<string, string | null>): CapabilityFactory[] {
  return defaultCapabilities.map((create) => (core) => {
    const capability = create(core);
    const facts = capability.facts?.bind(capability);
    if (!facts) return capability;
    capability.facts = async (session) => {
      const said = await facts(session);
      for (const fact of said) current.set(fact.key, fact.text);
      return said;
    };
    return capability;
  });
}

/**
 * The facts as Deft rendered them before this change: sections of the system prompt. While a goal was
 * active its section also carried the turns, tokens and time spent so far, so it changed at every step.
 */
function factsInSystemPrompt(current: ReadonlyMap<string, string | null>, step: number): string {
  const sections = [...current].filter(([, text]) => text !== null).map(([key, text]) => `${key}: ${text}`);
  if (/Goal \(active\)/.test(current.get('goal') ?? '')) sections.push(`goal spent so far: as of step ${step}`);
  return sections.join('\n');
}

/** Run the scripted session through the mock model; returns every request the model received, the facts behind each, and the session's token usage. */
async function scriptedSession(): Promise<{ requests: RecordedRequest[]; factsAt: string[]; usage: Usage | undefined }> {
  const current = new Map<string, string | null>();
  const factsAt: string[] = [];
  const h = await createHarness({ capabilities: recordingFacts(current) });
  const skillFile = join(h.workspace, '.deft', 'skills', 'demo', 'SKILL.md');
  try {
    await mkdir(join(skillFile, '..'), { recursive: true });
    await writeFile(skillFile, skill('A demo skill.'));
    await writeFile(join(h.workspace, 'README.md'), '# Bench workspace\n');
    await h.core.handlers.listSkills({ rescan: true });
    const replies = script();
    h.server.promptCache = true;
    h.server.fallback = () => {
      factsAt.push(factsInSystemPrompt(current, h.server.requests.length));
      return replies[h.server.requests.length - 1] ?? textReply('The script is over.');
    };
    // Before the 2nd prompt the skill is edited; before the 4th (after the goal) the mode is switched.
    const between: Array<(() => Promise<unknown>) | null> = [
      async () => {
        await writeFile(skillFile, skill('A demo skill, edited mid-session.'));
        await h.core.handlers.listSkills({ rescan: true });
      },
      null,
      () => h.core.handlers.setPermissionMode({ sessionId: h.session.id, mode: 'accept-edits' }),
    ];
    for (let turn = 0; h.server.requests.length < STEPS; turn++) {
      await between[turn - 1]?.();
      await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: `Prompt ${turn + 1}: keep going.` });
      await h.core.settled(h.session.id);
    }
    // Summed from each step's figures (what the provider reported), not from the session's running total.
    const steps = h.sessionEvents('usage').map((e) => (e as SessionEventOf<'usage'>).step);
    const usage: Usage = { inputTokens: 0, outputTokens: 0, cachedTokens: 0 };
    for (const step of steps) {
      usage.inputTokens += step.inputTokens;
      usage.outputTokens += step.outputTokens;
      usage.cachedTokens! += step.cachedTokens ?? 0;
    }
    return { requests: h.server.requests.slice(0, STEPS), factsAt: factsAt.slice(0, STEPS), usage };
  } finally {
    await h.dispose();
  }
}

/**
 * The steps (by request index) whose request would not start with the previous one had the facts been
 * rendered into the system prompt, as before: the same requests, breaking also wherever a fact changed.
 */
function breaksWithFactsInSystemPrompt(requests: readonly RecordedRequest[], factsAt: readonly string[]): number {
  let breaks = 0;
  for (let i = 1; i < requests.length; i++) if (factsAt[i] !== factsAt[i - 1] || prefixBreak(requests[i - 1]!, requests[i]!)) breaks++;
  return breaks;
}

/**
 * Prompt-cache friendliness: of the 50 steps of a scripted session, the share whose request starts
 * with the previous request byte for byte (same tools, same system prompt, every earlier message
 * unchanged), so a provider's prefix cache can serve all of it. The baseline replays the same requests
 * with the facts recorded before each step rendered into the system prompt, the way Deft did before.
 */
export default async function promptCacheBench(): Promise<BenchResult[]> {
  const { requests, factsAt, usage } = await scriptedSession();
  if (factsAt.length !== requests.length) throw new Error(`facts were recorded for ${factsAt.length} of ${requests.length} requests`);
  const breaks = prefixBreaks(requests);
  const steps = requests.length - 1;
  const share = ((steps - breaks.length) / steps) * 100;
  const before = ((steps - breaksWithFactsInSystemPrompt(requests, factsAt)) / steps) * 100;
  const why = breaks.slice(0, 3).map((b) => `#${b.index + 1}: ${b.why.slice(0, 80)}`);
  return [
    {
      name: `prompt prefix reuse: ${requests.length}-step scripted session (todo, goal, mode switch, skill edit, 2 task notifications)`,
      value: share,
      unit: '%',
      baseline: { name: 'same session, facts in the system prompt as before', value: before },
      note: `${breaks.length ? `${breaks.length} breaks; first: ${why.join(' | ')}` : 'no break'}; ${cachedShare(usage)}`,
    },
  ];
}
