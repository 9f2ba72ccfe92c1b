import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type Tool, type ToolResult, access, defineTool } from '#contract/tool';
import { createHarness } from '#test-support/harness';
import { callChunk, textReply, toolMessages, toolStep } from '#test-support/mock-steps';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness;
afterEach(async () => {
  await h?.dispose();
});

/** A tool that records the labels it ran with and answers with `result`. */
function probe(name: string, ran: string[], result: Partial<ToolResult> = {}, extra: Partial<Tool> = {}): Tool {
  return {
    ...defineTool({
      name,
      policy: { approval: 'rules', mainAgentOnly: false },
      description: `${name} (test)`,
      input: z.object({ label: z.string() }),
      resolveExecution: (args) => ({
        // Declares no accesses, so it runs alone and later calls wait for it.
        ...(result.stopBatchAfterThis ? {} : { accesses: access.none() }),
        description: `${name} ${args.label}`,
        display: { kind: 'generic', summary: args.label },
        approvalRule: name,
        execute: async () => {
          ran.push(`${name}:${args.label}`);
          return { output: `${name} ran ${args.label}`, ...result };
        },
      }),
    }),
    ...extra,
  };
}

const names = (h: Harness, request: number) => (h.server.requests[request]!.body.tools ?? []).map((t) => t.function.name);

describe('loop-control hints on a tool result', () => {
  it('stopBatchAfterThis: later calls of the step are skipped with an error, results stay in call order, and the turn goes on', async () => {
    const ran: string[] = [];
    h = await createHarness({ capabilities: [], tools: () => [probe('Echo', ran), probe('Stop', ran, { stopBatchAfterThis: true })] });
    h.server.enqueue(
      toolStep(
        callChunk('Echo', { label: 'a' }, 'c1'),
        callChunk('Stop', { label: 'b' }, 'c2'),
        callChunk('Echo', { label: 'c' }, 'c3'),
        callChunk('Stop', { label: 'd' }, 'c4'),
      ),
      textReply('done'),
    );
    await h.run('go');
    expect(ran).toEqual(['Echo:a', 'Stop:b']);
    const messages = toolMessages(h);
    expect(messages).toHaveLength(4);
    expect(messages[0]).toBe('Echo ran a');
    expect(messages[1]).toBe('Stop ran b');
    expect(messages[2]).toMatch(/^ERROR: Skipped because a previous call \(Stop\) stopped the batch/);
    expect(messages[3]).toMatch(/^ERROR: Skipped because a previous call \(Stop\) stopped the batch/);
    const results = h.sessionEvents('tool.call.result').map((e) => e as { callId: string; isError: boolean });
    expect(results.map((r) => [r.callId, r.isError])).toEqual([
      ['c1', false],
      ['c2', false],
      ['c3', true],
      ['c4', true],
    ]);
    // The model is asked again after the step: only the batch stopped.
    expect(h.server.requests).toHaveLength(2);
    expect(h.sessionEvents('turn.ended').at(-1)).toMatchObject({ stopReason: 'end_turn' });
  });

  it('stopTurn: the step’s results are recorded and the turn ends without another model step', async () => {
    const ran: string[] = [];
    h = await createHarness({ capabilities: [], tools: () => [probe('Echo', ran), probe('Finish', ran, { stopTurn: true })] });
    h.server.enqueue(toolStep(callChunk('Finish', { label: 'x' }, 'f1'), callChunk('Echo', { label: 'y' }, 'e1')), textReply('never asked'));
    await h.run('go');
    expect(ran).toEqual(['Finish:x', 'Echo:y']);
    expect(h.server.requests).toHaveLength(1);
    expect(h.sessionEvents('tool.call.result').map((e) => (e as { callId: string }).callId)).toEqual(['f1', 'e1']);
    expect(h.sessionEvents('turn.ended').at(-1)).toMatchObject({ stopReason: 'end_turn' });
    // Both results are in the history the next turn sends.
    h.server.enqueue(textReply('next'));
    await h.run('again');
    const next = h.server.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool')
      .map((m) => String(m.content));
    expect(next).toEqual(['Finish ran x', 'Echo ran y']);
  });
});

describe('an exclusive tool', () => {
  it('is refused when issued with other calls (the others run), and runs when it is the only call', async () => {
    const ran: string[] = [];
    h = await createHarness({ capabilities: [], tools: () => [probe('Echo', ran), probe('Swarm', ran, {}, { exclusive: true })] });
    h.server.enqueue(
      toolStep(callChunk('Swarm', { label: 's1' }), callChunk('Echo', { label: 'e' })),
      toolStep(callChunk('Swarm', { label: 's2' })),
      textReply('done'),
    );
    await h.run('go');
    expect(ran).toEqual(['Echo:e', 'Swarm:s2']);
    const second = h.server.requests[1]!.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(second[0]).toMatch(/^ERROR: Swarm must be the only tool call of its step, so it was not run\. Call Swarm again on its own/);
    expect(second[1]).toBe('Echo ran e');
    expect(toolMessages(h).at(-1)).toBe('Swarm ran s2');
  });
});

describe('tool disclosure', () => {
  it('a deferred tool is not sent to the model, and calling it before it is selected returns an error saying so', async () => {
    const ran: string[] = [];
    h = await createHarness({ capabilities: [], tools: () => [probe('Echo', ran), probe('Hidden', ran, {}, { disclosure: 'deferred', source: 'mcp' })] });
    h.server.enqueue(toolStep(callChunk('Hidden', { label: 'h' })), textReply('done'));
    await h.run('go');
    expect(names(h, 0)).toEqual(['Echo', 'select_tools']);
    expect(ran).toEqual([]);
    expect(toolMessages(h)[0]).toMatch(
      /^ERROR: Tool "Hidden" is deferred: it is known but has not been selected, so its schema was not sent to you\. Select it first/,
    );
  });
});
