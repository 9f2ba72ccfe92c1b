import { localEnvironment } from '#infra/environment/local/local-environment';
import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '#test-support/harness';
import { eventually, processesMatching, uniqueSleep } from '#test-support/processes';
import { MAX_OUTPUT_BYTES, type JobOptions, ShellJob } from './shell-job';

let dir: string;
let n = 0;
const started: ShellJob[] = [];
beforeEach(async () => {
  dir = await tempDir('deft-job-');
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((job) => job.stop('shutdown')));
  await rm(dir, { recursive: true, force: true });
});

async function start(command: string, options: Partial<JobOptions> = {}): Promise<ShellJob> {
  const id = `bash-test${String(++n).padStart(4, '0')}`;
  const job = await ShellJob.start({
    environment: localEnvironment(),
    id,
    command,
    cwd: dir,
    logPath: join(dir, id, 'output.log'),
    killGraceMs: 500,
    ...options,
  });
  started.push(job);
  return job;
}

describe('a shell job never waits for a person', () => {
  it('gives `cat` an empty stdin, so it returns at once', async () => {
    const job = await start('cat; echo "cat returned $?"');
    const outcome = await job.done;
    expect(outcome).toMatchObject({ reason: 'exited', exitCode: 0 });
    expect(job.excerpt().head).toBe('cat returned 0\n');
  });

  it('lets `read` see end-of-input', async () => {
    const job = await start('read x; echo "read status $?"');
    expect((await job.done).exitCode).toBe(0);
    expect(job.excerpt().head).toBe('read status 1\n');
  });

  it('has no controlling terminal: opening /dev/tty fails fast', async () => {
    const job = await start('cat /dev/tty; echo "tty status $?"; read -r pw < /dev/tty; echo "prompt status $?"');
    await job.done;
    const text = job.excerpt().head;
    expect(text).toMatch(/\/dev\/tty: No such device or address/);
    expect(text).toMatch(/tty status 1/);
    expect(text).toMatch(/prompt status 1/);
  });

  it('runs with the non-interactive environment', async () => {
    const job = await start('echo "$NO_COLOR|$TERM|$GIT_TERMINAL_PROMPT|$GIT_PAGER|$PAGER|$DEFT_TASK_ID"');
    await job.done;
    expect(job.excerpt().head).toBe(`1|dumb|0|cat|cat|${job.id}\n`);
  });
});

describe('output', () => {
  it('interleaves stdout and stderr as they arrive, into the log and to listeners', async () => {
    const seen: string[] = [];
    const job = await start('echo out1; sleep 0.05; echo err1 >&2; sleep 0.05; echo out2');
    job.onOutput((chunk) => seen.push(chunk.toString()));
    await job.done;
    expect(job.excerpt().head).toBe('out1\nerr1\nout2\n');
    expect(await readFile(job.logPath, 'utf8')).toBe('out1\nerr1\nout2\n');
    expect(seen.join('')).toBe('out1\nerr1\nout2\n');
  });

  it('keeps the head and tail of long output for the model, and all of it in the log', async () => {
    const job = await start('seq 1 200000');
    await job.done;
    const { head, tail, omittedBytes } = job.excerpt();
    expect(head.startsWith('1\n2\n3\n')).toBe(true);
    expect(tail.endsWith('199999\n200000\n')).toBe(true);
    expect(omittedBytes).toBeGreaterThan(1_000_000);
    expect((await stat(job.logPath)).size).toBe(job.outputBytes);
  });

  it('stops a command that writes more than 16 MiB, keeping exactly 16 MiB', async () => {
    const job = await start('yes deft-output-flood');
    const outcome = await job.done;
    expect(outcome.reason).toBe('output_limit');
    expect(outcome.outputBytes).toBe(MAX_OUTPUT_BYTES);
    expect((await stat(job.logPath)).size).toBe(MAX_OUTPUT_BYTES);
  });

  it('reports a command that cannot start', async () => {
    const job = await start('true', { cwd: join(dir, 'missing') });
    expect(await job.done).toMatchObject({ reason: 'spawn_error', error: expect.stringMatching(/does not exist/) });
  });
});

describe('stopping', () => {
  it('kills the whole process tree: `sleep & wait` leaves nothing behind', async () => {
    const nap = uniqueSleep();
    const job = await start(`sleep ${nap} & sleep ${nap} & wait`);
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toHaveLength(2));
    const outcome = await job.stop('killed');
    expect(outcome.reason).toBe('killed');
    expect(processesMatching(`sleep ${nap}`)).toEqual([]);
  });

  it('sends SIGKILL after the grace period to a tree that ignores SIGTERM', async () => {
    const nap = uniqueSleep();
    const job = await start(`trap '' TERM; bash -c "trap '' TERM; sleep ${nap}" & wait`, { killGraceMs: 300 });
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toHaveLength(1));
    const t0 = Date.now();
    await job.stop('killed');
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect(processesMatching(`sleep ${nap}`)).toEqual([]);
  });

  it('finds processes that left its group and tree (setsid, parent gone) by their marker', async () => {
    const nap = uniqueSleep();
    const job = await start(`(setsid sleep ${nap} > /dev/null 2>&1 &); sleep 60`);
    await eventually(() => expect(processesMatching(`sleep ${nap}`)).toHaveLength(1));
    await job.stop('killed');
    expect(processesMatching(`sleep ${nap}`)).toEqual([]);
  });

  it('fires a deadline only while running', async () => {
    const job = await start('sleep 5');
    let expired = false;
    job.setDeadline(50, () => {
      expired = true;
      void job.stop('timed_out');
    });
    expect((await job.done).reason).toBe('timed_out');
    expect(expired).toBe(true);
  });
});
