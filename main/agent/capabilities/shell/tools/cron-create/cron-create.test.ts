import { afterEach, describe, expect, it } from 'vitest';
import { shellCapability } from '../../capability';
import { DeftCore } from '#runtime/core';
import { type Harness, appEvents, callTool, createSpyHarness, createTasksHarness, lastRequestText } from '#test-support/shell-harness';
import { waitFor } from '#test-support/wait';
import { parseSchedule } from '../../cron/cron-expr';
import { fireOffsetMs } from '../../cron/jitter';
import { webHost } from '../../../../../host/hosts';

let h: Harness;
const cores: DeftCore[] = [];
afterEach(async () => {
  await Promise.all(cores.splice(0).map((c) => c.close()));
  await h?.dispose();
});

let clock = new Date('2026-03-02T08:00:00').getTime();
const now = () => clock;
const minutes = (n: number) => n * 60_000;

describe('CronCreate / CronList / CronDelete', () => {
  it('schedules a prompt, lists it, and deletes it', async () => {
    clock = new Date('2026-03-02T08:00:00').getTime();
    h = await createTasksHarness({}, { now, host: webHost });
    const { content } = await callTool(h, 'CronCreate', { cron: '0 9 * * mon-fri', prompt: 'Summarise yesterday’s commits.' });
    // A daily job fires up to 15 minutes after its time (jitter), and nextFireAt says when.
    expect(content).toMatch(
      /^id: [0-9a-f]{8}\ncron: 0 9 \* \* mon-fri\nhumanSchedule: at 09:00 on Monday to Friday\nrecurring: true\nnextFireAt: 2026-03-02T09:(0\d|1[0-4]):\d\d[+-]\d\d:\d\d\nexpiresAt: 2026-03-09T08:00:00/,
    );
    const id = /^id: (\S+)/.exec(content)![1]!;
    const next = appEvents(h, 'cron.updated').at(-1)!.jobs[0]!;
    expect(next.id).toBe(id);
    expect(next.nextFireAt! - new Date('2026-03-02T09:00:00').getTime()).toBe(
      fireOffsetMs({ id, recurring: true }, new Date('2026-03-02T09:00:00').getTime(), parseSchedule('0 9 * * mon-fri')),
    );
    const list = (await callTool(h, 'CronList', {})).content;
    expect(list).toMatch(
      new RegExp(
        `^scheduled_prompts: 1\\n---\\nid: ${id}\\ncron: 0 9 \\* \\* mon-fri\\nhumanSchedule: at 09:00 on Monday to Friday\\nnextFireAt: .+\\nrecurring: true\\nageDays: 0\\.0\\nstale: false\\nprompt: Summarise yesterday’s commits\\.$`,
      ),
    );
    expect((await callTool(h, 'CronDelete', { id })).content).toBe(`Deleted scheduled prompt ${id} (at 09:00 on Monday to Friday).`);
    expect((await callTool(h, 'CronList', {})).content).toBe('scheduled_prompts: 0\nNo prompts are scheduled in this session.');
    expect((await callTool(h, 'CronDelete', { id })).content).toMatch(/^ERROR: There is no scheduled prompt/);
    expect((await callTool(h, 'CronDelete', { id: 'xyz' })).content).toMatch(
      /Ids are 8 hex characters, as CronCreate and CronList give them\. Nothing is scheduled\.$/,
    );
  });

  it('refuses malformed schedules, long prompts and dates that never come before asking for approval, as validation errors', async () => {
    h = await createTasksHarness({}, { host: webHost });
    expect((await callTool(h, 'CronCreate', { cron: '0 0 * * * *', prompt: 'x' })).content).toMatch(/has 6 fields; a cron expression has exactly 5/);
    expect((await callTool(h, 'CronCreate', { cron: '@every 5m', prompt: 'x' })).content).toMatch(/Unknown cron macro/);
    expect((await callTool(h, 'CronCreate', { cron: '@daily', prompt: 'x'.repeat(8193) })).content).toMatch(
      /8193 bytes; scheduled prompts are at most 8192 bytes/,
    );
    // Not "Tool CronCreate failed: …": the model gave a schedule that never happens.
    expect((await callTool(h, 'CronCreate', { cron: '0 0 30 2 *', prompt: 'x' })).content).toBe(
      'ERROR: "0 0 30 2 *" never fires within the next 5 years (check the day and month, e.g. "0 0 30 2 *" never happens).',
    );
    expect(h.sessionEvents('approval.requested')).toEqual([]);
  });

  it('puts the whole payload in the approval rule', async () => {
    const rules: string[] = [];
    h = await createSpyHarness((call) => rules.push(call.execution.approvalRule), { host: webHost });
    await callTool(h, 'CronCreate', { cron: '@hourly', prompt: 'ping', recurring: false });
    expect(rules).toEqual(['CronCreate(\\{"cron":"\\@hourly","prompt":"ping","recurring":false\\})']);
  });

  it('fires only when the session is idle, wrapped so the model knows a schedule sent it', async () => {
    clock = new Date('2026-03-02T08:00:00').getTime();
    h = await createTasksHarness({}, { now, host: webHost });
    const { content } = await callTool(h, 'CronCreate', { cron: '*/10 * * * *', prompt: 'Check the deploy.' });
    const id = /^id: (\S+)/.exec(content)![1]!;
    expect(h.sessionEvents('turn.started')).toHaveLength(1);
    // Due while a turn runs: it waits for the turn to end, then fires once.
    clock += minutes(25);
    await h.run('busy with something');
    await h.core.turnDone(h.session.id);
    const started = h.sessionEvents('turn.started');
    expect(started).toHaveLength(3);
    expect(started.at(-1)).toMatchObject({ origin: 'cron', text: 'Scheduled prompt (every 10 minutes, 2 missed fires coalesced):\nCheck the deploy.' });
    const text = lastRequestText(h);
    expect(text).toMatch(
      new RegExp(`<cron-fire jobId="${id}" cron="\\*/10 \\* \\* \\* \\*" schedule="every 10 minutes" recurring="true" coalescedCount="2" stale="false"`),
    );
    expect(text).toContain('<prompt>\nCheck the deploy.\n</prompt>');
    const job = (await h.core.handlers.listTasks({ sessionId: h.session.id })).cron[0]!;
    const scheduled = new Date('2026-03-02T08:30:00').getTime();
    expect(job).toMatchObject({
      id,
      lastFiredAt: clock,
      nextFireAt: scheduled + fireOffsetMs({ id, recurring: true }, scheduled, parseSchedule('*/10 * * * *')),
    });
  });

  it('persists with the session and resumes with it; missed fires coalesce into one', async () => {
    clock = new Date('2026-03-02T08:00:00').getTime();
    h = await createTasksHarness({}, { now, host: webHost });
    await callTool(h, 'CronCreate', { cron: '@hourly', prompt: 'Hourly check.' });
    await h.core.close();
    clock += minutes(60 * 5 + 1);
    const core = new DeftCore({ home: h.home, workspace: h.workspace, host: webHost, secrets: h.secrets, now, capabilities: [shellCapability()] });
    cores.push(core);
    const turns: string[] = [];
    core.onEvent((e) => {
      if (e.type === 'turn.started') turns.push(e.origin);
    });
    const { cron } = await core.handlers.listTasks({ sessionId: h.session.id });
    expect(cron).toMatchObject([{ prompt: 'Hourly check.', humanSchedule: 'every hour, on the hour' }]);
    await new Promise((r) => setTimeout(r, 50));
    await core.turnDone(h.session.id);
    expect(turns).toEqual(['cron']);
    expect(lastRequestText(h)).toContain('coalescedCount="5"');
    // A new session does not inherit the schedule.
    const other = await core.handlers.createSession({});
    expect((await core.handlers.listTasks({ sessionId: other.session.id })).cron).toEqual([]);
  });

  it('is not offered in the one-shot CLI, where nothing would be left to fire it', async () => {
    h = await createTasksHarness({}, { now });
    await h.run('hi');
    expect(h.server.requests[0]!.body.tools!.map((t) => t.function.name)).not.toContain('CronCreate');
    expect((await callTool(h, 'CronCreate', { cron: '*/5 * * * *', prompt: 'Ping.' })).content).toMatch(/^ERROR: Tool "CronCreate" does not exist/);
  });

  it('says the kill switch is on when a job would have fired (DEFT_DISABLE_CRON=1), and refuses new jobs', async () => {
    clock = new Date('2026-03-02T08:00:00').getTime();
    h = await createTasksHarness({}, { now, host: webHost });
    await callTool(h, 'CronCreate', { cron: '*/10 * * * *', prompt: 'Check the deploy.' });
    await h.core.close();
    const core = new DeftCore({
      home: h.home,
      workspace: h.workspace,
      host: webHost,
      secrets: h.secrets,
      now,
      capabilities: [shellCapability({ cronDisabled: true })],
    });
    cores.push(core);
    const events: Array<{ type: string; message?: string; origin?: string }> = [];
    core.onEvent((e) => void events.push(e));
    clock += minutes(12);
    await core.handlers.listTasks({ sessionId: h.session.id });
    await waitFor(() => events.some((e) => e.type === 'error'));
    expect(events.filter((e) => e.type === 'turn.started')).toEqual([]);
    expect(events.find((e) => e.type === 'error')!.message).toMatch(
      /^The scheduled prompt [0-9a-f]{8} \(every 10 minutes\) was due at .* but did not run: scheduled prompts are turned off \(DEFT_DISABLE_CRON=1\)\.$/,
    );
    h.server.enqueue(
      { chunks: [{ toolCall: { id: 'k', name: 'CronCreate', args: JSON.stringify({ cron: '@hourly', prompt: 'x' }) } }, { finish: 'tool_calls' }] },
      { chunks: [{ text: 'ok' }, { finish: 'stop' }] },
    );
    await core.handlers.sendPrompt({ sessionId: h.session.id, text: 'schedule' });
    await core.turnDone(h.session.id);
    expect(JSON.stringify(h.server.requests.at(-1)!.body.messages.at(-1))).toContain('Scheduled prompts are turned off on this machine (DEFT_DISABLE_CRON=1)');
  });
});
