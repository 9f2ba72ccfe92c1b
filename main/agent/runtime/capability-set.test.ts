import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { stateSlot } from '../contract/state';
import { createHarness } from '#test-support/harness';
import { echoTool, waitTool } from '#test-support/tools';
import { callChunk, reminders, toolStep } from '#test-support/mock-steps';
import type { Tool } from '../contract/tool';
import type { Capability, SessionHandle } from '../contract/capability';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

describe('capabilities', () => {
  it('add tools, a system-prompt section written once and kept, and facts said in a reminder when they change', async () => {
    let section = 'Section v1';
    let fact = 'Fact v1';
    const bump = {
      ...echoTool,
      name: 'Bump',
      resolveExecution: () => ({
        description: 'bump',
        display: { kind: 'generic' as const, summary: 'bump' },
        approvalRule: 'Bump',
        execute: async () => {
          section = 'Section v2';
          fact = 'Fact v2';
          return { output: 'bumped' };
        },
      }),
    } as Tool;
    const capability: Capability = {
      name: 'test',
      tools: () => [bump],
      systemPrompt: () => section,
      facts: () => [{ key: 'test', text: `<system-reminder>\n${fact}\n</system-reminder>` }],
    };
    h = await createHarness({ capabilities: [() => capability] });
    h.server.enqueue(toolStep(callChunk('Bump', { text: 'x' })), toolStep(callChunk('Bump', { text: 'y' })));
    h.server.fallback = () => ({ chunks: [{ text: 'done' }, { finish: 'stop' }] });
    await h.run('go');
    const systems = h.server.requests.map((r) => String(r.body.messages[0]!.content));
    expect(systems[0]).toContain('Section v1');
    expect(new Set(systems).size).toBe(1);
    expect(h.server.requests[0]!.body.tools!.map((t) => t.function.name)).toEqual(['Bump']);
    // The fact comes before the prompt, its change once after the step it changed in.
    expect(reminders(h.server.requests[0]!.body.messages).join('\n')).toContain('Fact v1');
    expect(h.server.requests[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'go' });
    expect(h.server.requests[1]!.body.messages.at(-1)).toEqual({ role: 'user', content: '<system-reminder>\nFact v2\n</system-reminder>' });
    expect(reminders(h.server.requests[2]!.body.messages)).toHaveLength(2);
  });

  it('decide on calls in order; the first decision wins', async () => {
    const seen: string[] = [];
    const first: Capability = {
      name: 'a',
      authorize: async (_s, call) => (seen.push(`a:${call.name}`), call.name === 'Echo' ? { allowed: false, message: 'No echo.' } : undefined),
    };
    const second: Capability = { name: 'b', authorize: async (_s, call) => (seen.push(`b:${call.name}`), undefined) };
    h = await createHarness({ capabilities: [() => first, () => second], tools: () => [echoTool, waitTool] as Tool[] });
    h.server.enqueue({
      chunks: [{ toolCall: { name: 'Echo', args: '{"text":"x"}' } }, { toolCall: { name: 'Wait', args: '{"ms":1}' } }, { finish: 'tool_calls' }],
    });
    await h.run('go');
    expect(seen).toEqual(['a:Echo', 'a:Wait', 'b:Wait']);
    const messages = h.server.requests[1]!.body.messages;
    expect(messages.at(-2)!.content).toBe('ERROR: No echo.');
    expect(messages.at(-1)!.content).toBe('waited 1');
  });

  it("hear once per turn when the model starts a tool call, never in a text-only turn; the turn's calls wait for what they start", async () => {
    const seen: string[] = [];
    let ready = false;
    const capability: Capability = {
      name: 'early',
      onToolCallComing: async (_s, { turnId }) => {
        seen.push(`coming:${turnId.length > 0}`);
        await new Promise((r) => setTimeout(r, 150));
        ready = true;
      },
      onToolsStart: (_s, step) => void seen.push(`tools:${step.step}:${ready}`),
    };
    h = await createHarness({ capabilities: [() => capability], tools: () => [echoTool] as Tool[] });
    h.server.enqueue({ chunks: [{ text: 'Only words.' }, { finish: 'stop' }] });
    await h.run('talk');
    expect(seen).toEqual([]);
    h.server.enqueue(toolStep(callChunk('Echo', { text: 'one' })), toolStep(callChunk('Echo', { text: 'two' })), {
      chunks: [{ text: 'Done.' }, { finish: 'stop' }],
    });
    await h.run('work');
    expect(seen).toEqual(['coming:true', 'tools:1:true', 'tools:2:true']);
  });

  it('inject messages at the next step boundary and start turns of their own', async () => {
    let handle: SessionHandle | undefined;
    const notifier = {
      ...echoTool,
      name: 'Notify',
      resolveExecution: () => ({
        description: 'notify',
        display: { kind: 'generic' as const, summary: 'notify' },
        approvalRule: 'Notify',
        execute: async () => {
          handle!.inject('<notification>task finished</notification>');
          return { output: 'ok' };
        },
      }),
    } as Tool;
    const capability: Capability = { name: 'n', onSessionLoaded: (s) => void (handle = s), tools: () => [notifier] };
    h = await createHarness({ capabilities: [() => capability] });
    h.server.enqueue({ chunks: [{ toolCall: { name: 'Notify', args: '{"text":"x"}' } }, { finish: 'tool_calls' }] });
    await h.run('go');
    expect(h.server.requests[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'go' });
    expect(h.server.requests[1]!.body.messages.at(-1)).toEqual({ role: 'user', content: '<notification>task finished</notification>' });
    expect(h.server.requests[1]!.body.messages.at(-2)).toMatchObject({ role: 'tool' });

    const turnId = await handle!.startTurn({ text: 'Scheduled: check the build', modelText: '<cron-fire>check the build</cron-fire>', origin: 'cron' });
    expect(turnId).toMatch(/^turn-/);
    await h.core.turnDone(h.session.id);
    expect(h.sessionEvents('turn.started').at(-1)).toMatchObject({ text: 'Scheduled: check the build', origin: 'cron' });
    expect(h.server.requests.at(-1)!.body.messages.at(-1)).toEqual({ role: 'user', content: '<cron-fire>check the build</cron-fire>' });
    const slot = stateSlot('todo', z.array(z.object({ title: z.string() })), []);
    handle!.state(slot).set([{ title: 'a' }]);
    expect(handle!.state(slot).get()).toEqual([{ title: 'a' }]);
  });
});
