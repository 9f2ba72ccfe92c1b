import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { stateSlot } from '#contract/state';
import type { CoreContext, CapabilityFactory, SessionHandle } from '#contract/capability';
import { z } from 'zod';
import { createHarness, testCapabilities } from '#test-support/harness';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { waitTool } from '#test-support/tools';
import { waitFor } from '#test-support/wait';
import { webHost } from '../../../host/hosts';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness | null = null;
afterEach(async () => {
  await h?.dispose();
  h = null;
});

/** A few ms: a session no window shows is let go of at the next sweep once nothing holds it. */
const UNLOAD_AFTER_MS = 5;
const loaded = (hh: Harness, id: string) => hh.core.loadedSessionIds().includes(id);
const unloaded = (hh: Harness, id: string) => waitFor(() => !loaded(hh, id));

async function newSession(hh: Harness): Promise<string> {
  return (await hh.core.handlers.createSession({})).session.id;
}

describe('sessions no window shows are let go of when idle', () => {
  it('a session unloaded and opened again replays identically, with the same state, and the model reads the same context', async () => {
    h = await createHarness({ host: webHost, unloadAfterMs: UNLOAD_AFTER_MS });
    const hh = h;
    const id = hh.session.id;
    await writeFile(join(hh.workspace, 'notes.txt'), 'alpha\n');
    const approvals = () => hh.sessionEvents('approval.requested') as Array<Extract<SessionEvent, { type: 'approval.requested' }>>;
    // The window shows the session while it works; the user answers its approvals.
    hh.core.show('window', id);
    await hh.core.handlers.setPermissionMode({ sessionId: id, mode: 'ask' });
    hh.server.enqueue(
      toolStep(
        callChunk('TodoList', {
          todos: [
            { title: 'Read the notes', status: 'done' },
            { title: 'Edit them', status: 'in_progress' },
          ],
        }),
      ),
      toolStep(callChunk('Read', { path: 'notes.txt' })),
      toolStep(callChunk('Write', { path: 'new.txt', content: 'one' })),
      textReply('Read them.'),
    );
    await hh.core.handlers.sendPrompt({ sessionId: id, text: 'first question' });
    const approval = await waitFor(() => approvals()[0]);
    await hh.core.handlers.answerApproval({ sessionId: id, requestId: approval.requestId, answer: { decision: 'approve', scope: 'session' } });
    await hh.core.turnDone(id);
    const before = await hh.core.handlers.openSession({ sessionId: id });
    const permissionsBefore = await hh.core.handlers.getPermissions({ sessionId: id });
    const lastRequest = hh.server.requests.at(-1)!.body.messages;

    // The window shows another session: the first one is let go of.
    const other = await newSession(hh);
    hh.core.show('window', other);
    await unloaded(hh, id);

    const after = await hh.core.handlers.openSession({ sessionId: id });
    // Its tail is read from the log; the window then asks for its tasks, which loads it.
    await hh.core.handlers.listTasks({ sessionId: id });
    expect(loaded(hh, id)).toBe(true);
    expect(after).toEqual(before);
    expect([...(after.earlier ?? []), ...after.events].filter((e) => e.type === 'todo.updated').at(-1)).toMatchObject({
      items: [{ title: 'Read the notes' }, { title: 'Edit them' }],
    });
    const permissionsAfter = await hh.core.handlers.getPermissions({ sessionId: id });
    expect(permissionsAfter).toEqual(permissionsBefore);
    expect(permissionsAfter.mode).toBe('ask');

    // The next turn: the session's rule still allows the Write (no approval), Edit knows the file was read, and the
    // model reads the conversation exactly as before plus the new turn.
    hh.core.show('window', id);
    hh.server.enqueue(
      toolStep(callChunk('Write', { path: 'new.txt', content: 'two' })),
      toolStep(callChunk('Edit', { path: 'notes.txt', old_string: 'alpha', new_string: 'beta' })),
      textReply('Done.'),
    );
    await hh.core.handlers.sendPrompt({ sessionId: id, text: 'second question' });
    const editApproval = await waitFor(() => approvals()[1]);
    expect(editApproval.toolName).toBe('Edit');
    await hh.core.handlers.answerApproval({ sessionId: id, requestId: editApproval.requestId, answer: { decision: 'approve', scope: 'once' } });
    await hh.core.turnDone(id);
    const results = hh.sessionEvents('tool.call.result').slice(-2) as Array<Extract<SessionEvent, { type: 'tool.call.result' }>>;
    expect(results.map((r) => r.isError ?? false)).toEqual([false, false]);
    const firstOfTurn = hh.server.requests.find((r) => JSON.stringify(r.body.messages.at(-1)).includes('second question'))!.body.messages;
    expect(firstOfTurn.slice(0, lastRequest.length + 1)).toEqual([...lastRequest, { role: 'assistant', content: 'Read them.' }]);
  });

  it('never lets go of a session whose turn runs, whose background task runs, or that waits for an approval', async () => {
    h = await createHarness({ host: webHost, unloadAfterMs: UNLOAD_AFTER_MS, tools: () => [waitTool] });
    const hh = h;
    const turning = hh.session.id;
    const tasking = await newSession(hh);
    const asking = await newSession(hh);
    await hh.core.handlers.setPermissionMode({ sessionId: asking, mode: 'ask' });
    hh.server.route('keep working', toolStep(callChunk('Wait', { ms: 600_000 })), textReply('waited'));
    hh.server.route(
      'start a job',
      toolStep(callChunk('Bash', { command: 'sleep 600', run_in_background: true, description: 'long job' })),
      textReply('Started.'),
    );
    hh.server.route('ask first', toolStep(callChunk('Write', { path: 'asked.txt', content: 'x' })), textReply('Asked.'));
    await hh.core.handlers.sendPrompt({ sessionId: turning, text: 'keep working' });
    await hh.run('start a job', tasking);
    await hh.core.handlers.sendPrompt({ sessionId: asking, text: 'ask first' });
    await waitFor(() => hh.sessionEvents('tool.call.started').some((e) => e.sessionId === turning));
    const approval = await waitFor(
      () => hh.sessionEvents('approval.requested').find((e) => e.sessionId === asking) as Extract<SessionEvent, { type: 'approval.requested' }> | undefined,
    );

    // An idle session that no window shows goes at a sweep; the three busy ones were looked at by the same sweeps.
    const idle = await newSession(hh);
    await unloaded(hh, idle);
    const idleAgain = await newSession(hh);
    await unloaded(hh, idleAgain);
    expect(hh.core.loadedSessionIds().sort()).toEqual([turning, tasking, asking].sort());

    // Once their work is over, each is let go of.
    await hh.core.handlers.answerApproval({ sessionId: asking, requestId: approval.requestId, answer: { decision: 'reject' } });
    await unloaded(hh, asking);
    await hh.core.handlers.cancelTurn({ sessionId: turning });
    await unloaded(hh, turning);
    const { tasks } = await hh.core.handlers.listTasks({ sessionId: tasking });
    await hh.core.handlers.stopTask({ sessionId: tasking, taskId: tasks[0]!.id });
    // Stopped by the user, the task's end waits for the next turn: the session goes, and keeps that note for it.
    await unloaded(hh, tasking);
    expect(hh.core.loadedSessionIds()).toEqual([]);
    hh.server.route('what happened', textReply('The job was stopped.'));
    await hh.run('what happened', tasking);
    expect(JSON.stringify(hh.server.requests.at(-1)!.body.messages)).toContain(tasks[0]!.id);
  });

  it('keeps a session with a scheduled prompt (it fires only while loaded); deleting the job lets it go', async () => {
    h = await createHarness({ host: webHost, unloadAfterMs: UNLOAD_AFTER_MS });
    const hh = h;
    const scheduled = hh.session.id;
    hh.server.enqueue(toolStep(callChunk('CronCreate', { cron: '0 9 * * 1', prompt: 'Weekly review' })), textReply('Scheduled.'));
    await hh.run('every monday at nine', scheduled);
    const { cron } = await hh.core.handlers.listTasks({ sessionId: scheduled });
    expect(cron).toHaveLength(1);
    const idle = await newSession(hh);
    await unloaded(hh, idle);
    expect(loaded(hh, scheduled)).toBe(true);

    await hh.core.handlers.deleteCronJob({ sessionId: scheduled, jobId: cron[0]!.id });
    await unloaded(hh, scheduled);
  });

  it('keeps a session a window shows; when that window shows another one, it is let go of', async () => {
    h = await createHarness({ host: webHost, unloadAfterMs: UNLOAD_AFTER_MS });
    const hh = h;
    const shown = hh.session.id;
    hh.core.show('window-1', shown);
    const idle = await newSession(hh);
    await unloaded(hh, idle);
    expect(loaded(hh, shown)).toBe(true);

    hh.core.show('window-1', idle);
    await unloaded(hh, shown);
    // Showing a session does not load it, nor does a window's first open of it (its tail is read from the log); the
    // next command that needs it does (the window asks for its tasks once the tail is shown).
    expect(loaded(hh, idle)).toBe(false);
    await hh.core.handlers.openSession({ sessionId: idle });
    expect(loaded(hh, idle)).toBe(false);
    await hh.core.handlers.listTasks({ sessionId: idle });
    expect(loaded(hh, idle)).toBe(true);
    // A window that closes shows nothing.
    hh.core.show('window-1', null);
    await unloaded(hh, idle);
  });

  it('a command naming a session while it is loaded again waits for it (opening it and listing its tasks at once)', async () => {
    h = await createHarness({ host: webHost, unloadAfterMs: UNLOAD_AFTER_MS });
    const hh = h;
    const left = hh.session.id;
    hh.core.show('window-1', await newSession(hh));
    await unloaded(hh, left);
    hh.core.show('window-1', left);
    // The window switches back: it opens the session and asks for its tasks without waiting in between.
    const [opened, tasks] = await Promise.all([hh.core.handlers.openSession({ sessionId: left }), hh.core.handlers.listTasks({ sessionId: left })]);
    expect(opened.session.id).toBe(left);
    expect(tasks).toEqual({ tasks: [], cron: [], commands: [] });
  });

  it('a window whose session is deleted shows none any more (it goes to its empty view)', async () => {
    h = await createHarness({ host: webHost, unloadAfterMs: UNLOAD_AFTER_MS });
    const hh = h;
    const kept = hh.session.id;
    const deleted = await newSession(hh);
    hh.core.show('window-1', deleted);
    hh.core.show('window-2', deleted);
    hh.core.show('window-3', kept);
    await hh.core.handlers.deleteSession({ sessionId: deleted });
    expect(hh.core.shownSessionIds()).toEqual([kept]);
    expect(hh.core.loadedSessionIds()).not.toContain(deleted);
  });

  it('asks every capability (canUnload), and lets each save what must outlive the unload into the session state', async () => {
    const keptSlot = stateSlot('test.kept', z.string().nullable(), null);
    let holding: string | undefined;
    const unloadedHandles: SessionHandle[] = [];
    let context: CoreContext | undefined;
    const probe: CapabilityFactory = (core) => {
      context = core;
      return {
        name: 'probe',
        canUnload: (sessionId) => sessionId !== holding,
        onSessionUnloaded: (session) => {
          unloadedHandles.push(session);
          session.state(keptSlot).set('saved at unload');
        },
      };
    };
    h = await createHarness({ host: webHost, unloadAfterMs: UNLOAD_AFTER_MS, capabilities: [...testCapabilities, probe] });
    const hh = h;
    const held = hh.session.id;
    holding = held;
    const idle = await newSession(hh);
    await unloaded(hh, idle);
    expect(loaded(hh, held)).toBe(true);

    holding = undefined;
    await unloaded(hh, held);
    expect(unloadedHandles.map((s) => s.id)).toEqual([idle, held]);
    // A stale handle that starts a turn reaches the session loaded again (one session object per log).
    hh.server.enqueue(textReply('From a stale handle.'));
    const turnId = await unloadedHandles[1]!.startTurn({ text: 'stale start', origin: 'task' });
    expect(turnId).toMatch(/^turn-/);
    expect(loaded(hh, held)).toBe(true);
    await hh.core.turnDone(held);
    const reopened = await hh.core.handlers.openSession({ sessionId: held });
    expect(reopened.events.filter((e) => e.type === 'turn.started')).toHaveLength(1);
    expect((await context!.session(held)).state(keptSlot).get()).toBe('saved at unload');
  });
});
