import { localEnvironment } from '#infra/environment/local/local-environment';
import { getEventListeners } from 'node:events';
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionEventInput } from '#protocol';
import type { ToolCallRequest } from '#contract/model';
import { tempDir } from '#test-support/harness';
import { testTools } from '#test-support/tools';
import { ToolRegistry } from '../tools/registry';
import { type ToolCallOptions, runToolCalls as runBatch } from './tool-calls';

/** The step's tool messages (the batch's stop hints are tested in loop-control.test.ts). */
const runToolCalls = async (...args: Parameters<typeof runBatch>) => (await runBatch(...args)).messages;

let dir: string;
let events: SessionEventInput[];
let options: ToolCallOptions;

beforeEach(async () => {
  dir = await tempDir();
  events = [];
  options = {
    registry: new ToolRegistry(testTools),
    env: {
      environment: localEnvironment(),
      workspace: dir,
      home: dir,
      sessionId: 's',
      sessionDir: dir,
      capabilities: { imageInput: false },
      extraRoots: () => [],
    },
    turnId: 't1',
    step: 1,
    signal: new AbortController().signal,
    emit: (e) => events.push(e),
    saveFullOutput: async (name, id, text) => {
      const path = `${dir}/${name}-${id}.txt`;
      await (await import('node:fs/promises')).writeFile(path, text);
      return path;
    },
  };
});
afterEach(() => undefined);

const call = (name: string, args: unknown, id = `c-${name}`): ToolCallRequest => ({
  id,
  name,
  arguments: typeof args === 'string' ? args : JSON.stringify(args),
});
const text = (m: { content: unknown }) => m.content as string;

describe('runToolCalls', () => {
  it('runs a call and pairs one started and one result event with one tool message', async () => {
    const [message] = await runToolCalls([call('Echo', { text: 'hi', times: 2 })], options);
    expect(message).toMatchObject({ role: 'tool', toolCallId: 'c-Echo', toolName: 'Echo' });
    expect(text(message!)).toBe('hi\nhi\n<system>echo note</system>');
    expect(events.map((e) => e.type)).toEqual(['tool.call.started', 'tool.call.result']);
    expect(events[0]).toMatchObject({ description: 'Echo hi', args: { text: 'hi', times: 2 } });
    // The note reaches the model only.
    expect(events[1]).toMatchObject({ output: 'hi\nhi', isError: false });
  });

  it('applies schema defaults before the tool sees the arguments', async () => {
    const [message] = await runToolCalls([call('Echo', { text: 'once' })], options);
    expect(text(message!)).toMatch(/^once\n/);
  });

  it('answers an unknown tool with an error listing the real ones', async () => {
    const [message] = await runToolCalls([call('Nope', {})], options);
    expect(message).toMatchObject({ isError: true });
    expect(text(message!)).toContain('Tool "Nope" does not exist. Available tools: Echo, Wait');
  });

  it('answers malformed argument JSON with an error, never a crash', async () => {
    const [message] = await runToolCalls([call('Echo', '{"text": "unterminated')], options);
    expect(text(message!)).toMatch(/^ERROR: The arguments for Echo are not valid JSON/);
    expect(events[1]).toMatchObject({ type: 'tool.call.result', isError: true });
  });

  it('explains schema violations one per problem', async () => {
    const [message] = await runToolCalls([call('Echo', { txt: 'x', times: 0 })], options);
    const out = text(message!);
    expect(out).toContain("must have required property 'text'");
    expect(out).toContain("must NOT have additional property 'txt'");
    expect(out).toContain('/times must be >= 1');
  });

  it('treats empty arguments as {}', async () => {
    const [message] = await runToolCalls([call('Echo', '')], options);
    expect(text(message!)).toContain("must have required property 'text'");
  });

  it('passes a ToolInputError message through verbatim', async () => {
    const [message] = await runToolCalls([call('Refuse', { path: '../x' })], options);
    expect(text(message!)).toBe('ERROR: ../x is outside the workspace. Use an absolute path.');
  });

  it('returns results in call order even when later calls finish first, and runs them in parallel', async () => {
    const started = Date.now();
    const messages = await runToolCalls([call('Wait', { ms: 150, label: 'slow' }, 'a'), call('Wait', { ms: 10, label: 'fast' }, 'b')], options);
    expect(messages.map(text)).toEqual(['waited 150 slow', 'waited 10 fast']);
    expect(Date.now() - started).toBeLessThan(300);
    const results = events.filter((e) => e.type === 'tool.call.result').map((e) => (e as { callId: string }).callId);
    expect(results).toEqual(['a', 'b']);
  });

  it('runs 16 parallel calls without piling listeners onto the turn signal (no MaxListenersExceededWarning)', async () => {
    const turn = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => void warnings.push(warning);
    process.on('warning', onWarning);
    let mostListeners = 0;
    const watch = setInterval(() => (mostListeners = Math.max(mostListeners, getEventListeners(turn.signal, 'abort').length)), 5);
    try {
      const calls = Array.from({ length: 16 }, (_, i) => call('Wait', { ms: 60, label: `n${i}` }, `w${i}`));
      const messages = await runToolCalls(calls, { ...options, signal: turn.signal });
      expect(messages.map(text)).toEqual(calls.map((_, i) => `waited 60 n${i}`));
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      clearInterval(watch);
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    expect(mostListeners).toBeGreaterThan(0);
    expect(mostListeners).toBeLessThanOrEqual(2);
  });

  it('serialises calls that write the same path', async () => {
    const started = Date.now();
    await runToolCalls([call('Wait', { ms: 100, path: '/w/x' }, 'a'), call('Wait', { ms: 100, path: '/w/x' }, 'b')], options);
    expect(Date.now() - started).toBeGreaterThanOrEqual(195);
  });

  it('caps long output, saves the whole of it, and tells the model where', async () => {
    const [message] = await runToolCalls([call('Big', { chars: 120_000 })], options);
    const out = text(message!);
    expect(out.length).toBeLessThan(51_000);
    const saved = /saved to (\S+)\. Read that file/.exec(out)?.[1];
    expect(saved).toBeTruthy();
    expect((await readFile(saved!, 'utf8')).length).toBe(120_000);
  });

  it('refuses a call the authorizer denies, with its message', async () => {
    options.authorize = async (c) => (c.name === 'Echo' ? { allowed: false, message: 'Denied by rule Echo.' } : { allowed: true });
    const [denied, allowed] = await runToolCalls([call('Echo', { text: 'x' }), call('Wait', { ms: 1 })], options);
    expect(text(denied!)).toBe('ERROR: Denied by rule Echo.');
    expect(text(allowed!)).toBe('waited 1');
  });

  it('gives a tool that ignores the abort 2 s (configurable) and then reports it', async () => {
    const controller = new AbortController();
    options.signal = controller.signal;
    options.abortGraceMs = 100;
    setTimeout(() => controller.abort(), 20);
    const started = Date.now();
    const [stubborn] = await runToolCalls([call('Stubborn', { ms: 5_000 })], options);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(text(stubborn!)).toContain('did not stop within 100 ms');
  });

  it('marks calls queued behind an abort as interrupted without running them', async () => {
    const controller = new AbortController();
    options.signal = controller.signal;
    setTimeout(() => controller.abort(), 20);
    const messages = await runToolCalls([call('Stubborn', { ms: 60 }, 'a'), call('Echo', { text: 'late' }, 'b')], { ...options, abortGraceMs: 500 });
    expect(text(messages[1]!)).toContain('interrupted this Echo call before it ran');
  });
});

describe('a refused call', () => {
  it('still shows what it would have done', async () => {
    options.authorize = async () => ({ allowed: false, message: 'Rejected.' });
    await runToolCalls([call('Echo', { text: 'shown' })], options);
    expect(events[0]).toMatchObject({ type: 'tool.call.started', description: 'Echo shown', display: { kind: 'generic', summary: 'shown' } });
  });
});
