import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DeftEvent, PublicSettings, SessionSummary, TaskInfo } from '#protocol';
import { eventsOf } from './test-events';

// The bridge is window.deft (Electron's preload); here, a stand-in that the test pushes events through.
let push: (event: DeftEvent) => void = () => {};
let connect: (state: 'open' | 'closed') => void = () => {};
let frames: Array<() => void> = [];
const bridge = {
  onEvent: (callback: typeof push) => ((push = callback), () => {}),
  onConnection: (callback: typeof connect) => ((connect = callback), () => {}),
};

const load = async () => {
  const { bindStores } = await import('./bind');
  const { useSessions } = await import('./sessions');
  const { useTranscript } = await import('./transcript');
  const { useSettings } = await import('./settings');
  const { useTasks } = await import('./tasks');
  const { useUi } = await import('./ui');
  return { bindStores, useSessions, useTranscript, useSettings, useTasks, useUi };
};

beforeEach(() => {
  vi.resetModules();
  vi.useFakeTimers();
  vi.stubGlobal('window', { deft: bridge });
  vi.stubGlobal('requestAnimationFrame', (callback: () => void) => frames.push(callback));
  frames = [];
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const runFrame = () => {
  const due = frames;
  frames = [];
  for (const callback of due) callback();
};
const session = (id: string): SessionSummary => ({ id, title: `Title ${id}`, workspace: '/w', createdAt: 0, updatedAt: 1, turns: 0, running: true });

describe('binding the stores to the bridge', () => {
  it('applies what arrives in one frame at once, routing each event to its store', async () => {
    const { bindStores, useSessions, useTranscript, useSettings, useTasks } = await load();
    const hooks = { onReconnect: vi.fn(), onSkillsChanged: vi.fn() };
    bindStores(hooks);
    useSessions.getState().beginOpen('s');
    useSessions.getState().finishOpen('s', [], false, []);
    useTasks.getState().load('s', { tasks: [], cron: [], commands: [] });
    let renders = 0;
    useTranscript.subscribe(() => renders++);

    const ev = eventsOf('s');
    push(ev('turn.started', { turnId: 't', text: 'Hi', attachments: [], origin: 'user' }));
    for (const text of ['a', 'b', 'c']) push(ev('assistant.delta', { turnId: 't', step: 0, text }));
    push(ev('session.updated', { session: session('s') }));
    push({ type: 'settings.updated', settings: { provider: null } as unknown as PublicSettings });
    push({ type: 'task.started', sessionId: 's', task: { id: 'bash-1', status: 'running', startedAt: 1 } as TaskInfo });
    push({ type: 'skills.changed', version: 2, count: 1, skipped: 0 });
    expect(useTranscript.getState().items).toEqual([]);
    expect(frames).toHaveLength(1);

    runFrame();
    expect(renders).toBe(1);
    expect(useTranscript.getState().items.map((i) => ('text' in i ? i.text : ''))).toEqual(['Hi', 'abc']);
    expect(useSessions.getState().sessions.map((s) => s.title)).toEqual(['Title s']);
    expect(useSettings.getState().settings).toEqual({ provider: null });
    expect(useTasks.getState().tasks.map((t) => t.id)).toEqual(['bash-1']);
    expect(hooks.onSkillsChanged).toHaveBeenCalledTimes(1);

    push({ type: 'session.deleted', sessionId: 's' });
    runFrame();
    expect(useSessions.getState()).toMatchObject({ sessions: [], currentId: null });
  });

  it('lets streamed text wait while the page is behind, and nothing else', async () => {
    const { bindStores, useSessions, useTranscript } = await load();
    bindStores({ onReconnect: vi.fn(), onSkillsChanged: vi.fn() });
    useSessions.getState().beginOpen('s');
    useSessions.getState().finishOpen('s', [], false, []);
    let clock = 1_000;
    vi.spyOn(performance, 'now').mockImplementation(() => clock);
    const ev = eventsOf('s');
    const shown = () => useTranscript.getState().items.map((i) => ('text' in i ? i.text : ''));
    const frame = (ms: number) => {
      clock += ms;
      runFrame();
    };
    push(ev('turn.started', { turnId: 't', text: 'Hi', attachments: [], origin: 'user' }));
    push(ev('assistant.delta', { turnId: 't', step: 0, text: 'a' }));
    frame(16);
    expect(shown()).toEqual(['Hi', 'a']);
    // A page that keeps up: text is applied every frame.
    push(ev('assistant.delta', { turnId: 't', step: 0, text: 'b' }));
    frame(16);
    expect(shown()).toEqual(['Hi', 'ab']);
    // That frame took 120 ms: the next text waits about as long, frames keep coming meanwhile.
    push(ev('assistant.delta', { turnId: 't', step: 0, text: 'c' }));
    frame(120);
    expect(shown()).toEqual(['Hi', 'ab']);
    push(ev('assistant.delta', { turnId: 't', step: 0, text: 'd' }));
    frame(60);
    expect(shown()).toEqual(['Hi', 'ab']);
    frame(70);
    expect(shown()).toEqual(['Hi', 'abcd']);
    // Another slow frame; then an event that is not text growing comes: everything queued is applied at once, in order.
    push(ev('assistant.delta', { turnId: 't', step: 0, text: 'e' }));
    frame(200);
    expect(shown()).toEqual(['Hi', 'abcd']);
    push(ev('assistant.delta', { turnId: 't', step: 0, text: 'f' }));
    push(ev('step.ended', { turnId: 't', step: 0, finishReason: 'end_turn' }));
    frame(16);
    expect(shown()).toEqual(['Hi', 'abcdef']);
    expect(useTranscript.getState().items.at(-1)).toMatchObject({ streaming: false });
    // However slow the page, text waits no longer than 250 ms (MAX_TEXT_WAIT_MS).
    push(
      ev('tool.call.started', { turnId: 't', step: 0, callId: 'c1', name: 'Bash', args: {}, description: 'run', display: { kind: 'generic', summary: 'run' } }),
    );
    push(ev('tool.call.progress', { turnId: 't', callId: 'c1', kind: 'output', text: 'x' }));
    frame(16);
    push(ev('tool.call.progress', { turnId: 't', callId: 'c1', kind: 'output', text: 'y' }));
    frame(5_000);
    frame(249);
    expect(useTranscript.getState().items.at(-1)).toMatchObject({ progress: 'x' });
    frame(2);
    expect(useTranscript.getState().items.at(-1)).toMatchObject({ progress: 'xy' });
  });

  it('still applies events when no frame comes (a hidden tab)', async () => {
    const { bindStores, useSessions } = await load();
    bindStores({ onReconnect: vi.fn(), onSkillsChanged: vi.fn() });
    push(eventsOf('x')('session.updated', { session: session('x') }));
    vi.advanceTimersByTime(249);
    expect(useSessions.getState().sessions).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(useSessions.getState().sessions).toHaveLength(1);
    // The frame that comes late finds nothing left to do.
    runFrame();
    expect(useSessions.getState().sessions).toHaveLength(1);
  });

  it('shows the connection and catches up after it comes back', async () => {
    const { bindStores, useUi } = await load();
    const hooks = { onReconnect: vi.fn(), onSkillsChanged: vi.fn() };
    bindStores(hooks);
    connect('open');
    expect(hooks.onReconnect).not.toHaveBeenCalled();
    connect('closed');
    expect(useUi.getState().connection).toBe('closed');
    connect('open');
    expect(useUi.getState().connection).toBe('open');
    expect(hooks.onReconnect).toHaveBeenCalledTimes(1);
  });
});
