import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEventOf } from '#protocol';
import { defaultCapabilities } from '../../capabilities';
import { CheckpointStore } from './store/store';
import { loggedGit } from '#test-support/logged-git';
import { createHarness } from '#test-support/harness';
import { callChunk, textReply, toolStep, withoutReminders } from '#test-support/mock-steps';
import { eventually } from '#test-support/processes';
import { settle } from '#test-support/shell-harness';
import { waitFor } from '#test-support/wait';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness | null = null;
afterEach(async () => {
  await h?.dispose();
  h = null;
});

async function put(root: string, path: string, content: string | Buffer, mode?: number): Promise<void> {
  await mkdir(join(root, path, '..'), { recursive: true });
  await writeFile(join(root, path), content);
  if (mode !== undefined) await chmod(join(root, path), mode);
}

const read = (h: Harness, path: string) => readFile(join(h.workspace, path), 'utf8').catch(() => null);
const modeOf = async (h: Harness, path: string) => (await stat(join(h.workspace, path))).mode & 0o777;

/** Every file of the workspace (outside .git) with its content and mode. */
async function state(h: Harness, paths: string[]) {
  return Object.fromEntries(
    await Promise.all(paths.map(async (p) => [p, { text: await read(h, p), mode: (await read(h, p)) === null ? null : await modeOf(h, p) }])),
  );
}

/**
 * One prompt that changes four files four ways: Write, Bash append, rm, and a background task that creates
 * one after the turn has ended (it waits for a signal file outside the workspace).
 */
async function changingTurn(h: Harness): Promise<string> {
  const signal = join(h.home, 'go');
  h.server.enqueue(
    toolStep(callChunk('Read', { path: 'a.txt' })),
    toolStep(callChunk('Write', { path: 'a.txt', content: 'written by Write\n' })),
    toolStep(callChunk('Bash', { command: 'echo x >> b.txt' }), callChunk('Bash', { command: 'rm c.sh' })),
    toolStep(
      callChunk('Bash', {
        command: `while [ ! -e '${signal}' ]; do sleep 0.05; done; printf made > d.txt`,
        run_in_background: true,
        description: 'make d.txt',
      }),
    ),
    textReply('Done.'),
  );
  const turnId = await h.run('change the files');
  // The background task ends, wakes the agent (a turn of its own) and is checkpointed.
  await writeFile(signal, '');
  await eventually(() => expect(h.sessionEvents('turn.started').some((e) => (e as SessionEventOf<'turn.started'>).origin === 'task')).toBe(true), 15_000);
  await settle(h);
  // The task's checkpoint is taken as it ends, beside the turn it starts (after the file watcher's fence): wait for it.
  const store = await CheckpointStore.open(h.home, h.workspace);
  await eventually(async () => expect((await store.list(h.session.id)).some((c) => c.kind === 'task')).toBe(true), 15_000);
  store.close();
  return turnId;
}

const FILES = ['a.txt', 'b.txt', 'c.sh', 'd.txt'];

async function setUp(h: Harness) {
  await put(h.workspace, 'a.txt', 'original a\n');
  await put(h.workspace, 'b.txt', 'original b\n', 0o600);
  await put(h.workspace, 'c.sh', '#!/bin/sh\necho c\n', 0o755);
}

// Each test runs several turns of real tools, shell commands and git processes (a few dozen spawns): on a
// machine shared with other test runs that takes longer than the default limit.
describe('checkpoints through the agent loop', { timeout: 90_000 }, () => {
  it('rewinds the code to before a prompt (Write, Bash append, rm, background task) exactly, and undoes the rewind', async () => {
    h = await createHarness({ capabilities: defaultCapabilities });
    await setUp(h);
    const before = await state(h, FILES);
    await h.run('first prompt');
    const turnId = await changingTurn(h);
    const after = await state(h, FILES);
    expect(after).toEqual({
      'a.txt': { text: 'written by Write\n', mode: 0o644 & ~process.umask() },
      'b.txt': { text: 'original b\nx\n', mode: 0o600 },
      'c.sh': { text: null, mode: null },
      'd.txt': { text: 'made', mode: expect.any(Number) },
    });

    // The turn's changed files come from the checkpoints: the shell's changes count too.
    const changes = h.sessionEvents('turn.changes').find((e) => (e as SessionEventOf<'turn.changes'>).turnId === turnId) as SessionEventOf<'turn.changes'>;
    expect(changes.files.map((f) => [f.path, f.status]).sort()).toEqual([
      ['a.txt', 'modified'],
      ['b.txt', 'modified'],
      ['c.sh', 'deleted'],
    ]);

    const { prompts, status } = await h.core.handlers.listCheckpoints({ sessionId: h.session.id });
    expect(status).toEqual({ available: true });
    expect(prompts.map((p) => [p.index, p.text, p.origin])).toEqual([
      [1, 'first prompt', 'user'],
      [2, 'change the files', 'user'],
      [0, expect.stringContaining('Background task'), 'task'],
    ]);
    expect(prompts[1]!.changedFiles).toBe(4); // d.txt too: its background task ended before the next turn

    const preview = await h.core.handlers.previewRewind({ sessionId: h.session.id, turnId, scope: 'code' });
    expect(preview.files.map((f) => [f.path, f.action, f.outside]).sort()).toEqual([
      ['a.txt', 'restore', false],
      ['b.txt', 'restore', false],
      ['c.sh', 'bring_back', false],
      ['d.txt', 'remove', false],
    ]);
    expect(preview.files.find((f) => f.path === 'a.txt')!.hunks[0]!.lines).toEqual(['-written by Write', '+original a']);
    expect(preview.index).toBe(2);

    const result = await h.core.handlers.rewind({ sessionId: h.session.id, turnId, scope: 'code', includeOutside: false, expect: preview.expect });
    expect(result).toMatchObject({ restored: ['a.txt', 'b.txt'], broughtBack: ['c.sh'], removed: ['d.txt'], problems: [], undoneTurns: [] });
    expect(await state(h, FILES)).toEqual(before);
    expect(h.sessionEvents('rewind.done')).toHaveLength(1);

    await h.core.handlers.undoRewind({ sessionId: h.session.id });
    expect(await state(h, FILES)).toEqual(after);
    expect(h.sessionEvents('rewind.undone')).toHaveLength(1);
    await expect(h.core.handlers.undoRewind({ sessionId: h.session.id })).rejects.toThrow(/no rewind to undo/);

    // The model is told that the files changed under it (code only keeps the conversation).
    await h.core.handlers.rewind({ sessionId: h.session.id, turnId, scope: 'code', includeOutside: false });
    await h.run('what now?');
    const lastUser = h.server.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'user')
      .map((m) => String(m.content));
    expect(lastUser.some((t) => t.includes('rewound the workspace') && t.includes('before prompt 2'))).toBe(true);
  });

  it('rewinds the conversation only, leaving every file alone; both at once; and undoes both', async () => {
    h = await createHarness({ capabilities: defaultCapabilities });
    await setUp(h);
    const before = await state(h, FILES);
    await h.run('first prompt');
    const turnId = await changingTurn(h);
    const after = await state(h, FILES);

    const conversation = await h.core.handlers.rewind({ sessionId: h.session.id, turnId, scope: 'conversation', includeOutside: false });
    expect(conversation.undoneTurns).toHaveLength(2); // the prompt's turn and the task's turn after it
    expect(await state(h, FILES)).toEqual(after);
    await h.core.handlers.undoRewind({ sessionId: h.session.id });
    expect(h.sessionEvents('turns.redone')).toHaveLength(1);

    const both = await h.core.handlers.rewind({ sessionId: h.session.id, turnId, scope: 'both', includeOutside: false });
    expect(both.undoneTurns).toEqual(conversation.undoneTurns);
    expect(await state(h, FILES)).toEqual(before);
    await h.run('next');
    expect(
      withoutReminders(h.server.requests.at(-1)!.body.messages)
        .filter((m) => m.role === 'user')
        .map((m) => m.content),
    ).toEqual(['first prompt', 'next']);
    // A turn ran since: the rewind can no longer be undone.
    await expect(h.core.handlers.undoRewind({ sessionId: h.session.id })).rejects.toThrow(/A turn has run since/);
  });

  it('warns about files changed outside Deft since that point and restores them only when asked', async () => {
    h = await createHarness({ capabilities: defaultCapabilities });
    await setUp(h);
    const turnId = await changingTurn(h);
    // The user edits a.txt (changed by the turn too) and e.txt between turns, outside Deft.
    await writeFile(join(h.workspace, 'a.txt'), 'edited by the user\n');
    await put(h.workspace, 'e.txt', 'made by the user\n');
    const preview = await h.core.handlers.previewRewind({ sessionId: h.session.id, turnId, scope: 'code' });
    expect(
      preview.files
        .filter((f) => f.outside)
        .map((f) => f.path)
        .sort(),
    ).toEqual(['a.txt', 'e.txt']);

    const kept = await h.core.handlers.rewind({ sessionId: h.session.id, turnId, scope: 'code', includeOutside: false });
    expect(kept.keptOutside.sort()).toEqual(['a.txt', 'e.txt']);
    expect(await read(h, 'a.txt')).toBe('edited by the user\n');
    expect(await read(h, 'b.txt')).toBe('original b\n');
    await h.core.handlers.undoRewind({ sessionId: h.session.id });
    await h.core.handlers.rewind({ sessionId: h.session.id, turnId, scope: 'code', includeOutside: true });
    expect(await read(h, 'a.txt')).toBe('original a\n');
    expect(await read(h, 'e.txt')).toBeNull();
  });

  it("leaves the user's own edits made in their editor while a turn ran, listing them as changed outside the turn (issue 27, finding 12)", async () => {
    h = await createHarness({ capabilities: defaultCapabilities });
    await setUp(h);
    await put(h.workspace, 'notes.txt', 'my notes\n');
    // The model takes its time writing the step; meanwhile the user saves notes.txt and a new file in their editor.
    h.server.enqueue(
      toolStep(callChunk('Read', { path: 'a.txt' })),
      { ...toolStep(callChunk('Bash', { command: 'echo turn >> b.txt' }), callChunk('Write', { path: 'a.txt', content: 'written by Write\n' })), delayMs: 400 },
      textReply('Done.'),
    );
    const running = h.run('change b and a');
    // Once the turn's checkpoint is taken and the model is writing its second step.
    await eventually(async () => expect((await h!.core.handlers.listCheckpoints({ sessionId: h!.session.id })).prompts).toHaveLength(1), 10_000);
    await eventually(() => expect(h!.server.requests.length).toBe(2), 10_000);
    await writeFile(join(h.workspace, 'notes.txt'), 'my notes, edited while the turn ran\n');
    await put(h.workspace, 'mine.txt', 'made by the user while the turn ran\n');
    const turnId = await running;
    expect(await read(h, 'b.txt')).toBe('original b\nturn\n');

    const preview = await h.core.handlers.previewRewind({ sessionId: h.session.id, turnId, scope: 'code' });
    expect(preview.files.map((f) => [f.path, f.outside]).sort()).toEqual([
      ['a.txt', false],
      ['b.txt', false],
      ['mine.txt', true],
      ['notes.txt', true],
    ]);
    const result = await h.core.handlers.rewind({ sessionId: h.session.id, turnId, scope: 'code', includeOutside: false });
    expect(result.restored.sort()).toEqual(['a.txt', 'b.txt']);
    expect(result.keptOutside.sort()).toEqual(['mine.txt', 'notes.txt']);
    expect(await read(h, 'notes.txt')).toBe('my notes, edited while the turn ran\n');
    expect(await read(h, 'mine.txt')).toBe('made by the user while the turn ran\n');
    expect(await read(h, 'a.txt')).toBe('original a\n');
    expect(await read(h, 'b.txt')).toBe('original b\n');
  });

  it("reports ignored and oversized files instead of losing them silently, and never touches a repository's .git", async () => {
    h = await createHarness({ capabilities: defaultCapabilities });
    await setUp(h);
    await put(h.workspace, '.gitignore', 'build/\n');
    execFileSync('git', ['init', '-q'], { cwd: h.workspace });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'x'], { cwd: h.workspace });
    const workspace = h.workspace;
    const dotGit = () => execFileSync('sh', ['-c', 'find .git -type f | sort | xargs sha1sum'], { cwd: workspace }).toString();
    const gitBefore = dotGit();
    await h.core.handlers.setCheckpointLimits({ maxFileBytes: 1024 });
    h.server.enqueue(
      toolStep(callChunk('Bash', { command: 'head -c 4096 /dev/zero > big.bin && mkdir -p build && echo out > build/out.js && echo y > b.txt' })),
      textReply('ok'),
    );
    const turnId = await h.run('make big things');
    const preview = await h.core.handlers.previewRewind({ sessionId: h.session.id, turnId, scope: 'code' });
    expect(preview.files.map((f) => f.path)).toEqual(['b.txt']);
    expect(preview.notCaptured).toEqual([{ path: 'big.bin', reason: 'too_large', size: 4096 }]);
    const result = await h.core.handlers.rewind({ sessionId: h.session.id, turnId, scope: 'code', includeOutside: false });
    expect(result.notCaptured.map((f) => f.path)).toEqual(['big.bin']);
    expect(await read(h, 'b.txt')).toBe('original b\n');
    expect((await stat(join(h.workspace, 'big.bin'))).size).toBe(4096); // left as it is, and said so
    expect(await read(h, 'build/out.js')).toBe('out\n'); // ignored: never captured, never touched
    await h.core.handlers.undoRewind({ sessionId: h.session.id });
    expect(dotGit()).toBe(gitBefore);
    const storage = await h.core.handlers.checkpointStorage({});
    expect(storage).toMatchObject({ status: { available: true }, maxFileBytes: 1024, sessions: 1 });
    expect(storage.path.startsWith(h.home)).toBe(true);
  });

  it("keeps the store under its cap: Clean up drops deleted sessions' checkpoints first, then the oldest, keeping each session's newest", async () => {
    h = await createHarness({ capabilities: defaultCapabilities });
    // Incompressible content, so sizes are the bytes written.
    const noise = (n: number) => `head -c ${n} /dev/urandom > `;
    // Its file is gone before the other session starts, so only the deleted session's checkpoints hold it.
    h.server.enqueue(
      toolStep(callChunk('Bash', { command: `${noise(300_000)}old.bin` })),
      toolStep(callChunk('Bash', { command: 'rm old.bin' })),
      textReply('ok'),
    );
    await h.run('in a session that will be deleted');
    const { session: live } = await h.core.handlers.createSession({});
    for (let i = 0; i < 2; i++) {
      h.server.enqueue(toolStep(callChunk('Bash', { command: `${noise(200_000)}live${i}.bin` })), textReply('ok'));
      await h.run(`live ${i}`, live.id);
    }
    await h.core.handlers.deleteSession({ sessionId: h.session.id });
    const before = await h.core.handlers.checkpointStorage({});
    expect(before).toMatchObject({ sessions: 2, deletedSessions: 1 });
    expect(before.bytes).toBeGreaterThan(700_000);

    const cleaned = await h.core.handlers.cleanUpCheckpoints({});
    expect(cleaned).toMatchObject({ sessions: 1, deletedSessions: 0 });
    expect(cleaned.freedBytes).toBeGreaterThan(0);
    // The live session's checkpoints are all there while the store is under its cap.
    const prompts = async () => (await h!.core.handlers.listCheckpoints({ sessionId: live.id })).prompts.filter((p) => p.hasCheckpoint).length;
    expect(await prompts()).toBe(2);

    // A cap below what the live session holds: the oldest go, the session's newest two stay.
    await h.core.handlers.setCheckpointLimits({ limitBytes: 250_000 });
    const capped = await h.core.handlers.cleanUpCheckpoints({});
    expect(capped.checkpoints).toBeGreaterThanOrEqual(2);
    expect(capped.checkpoints).toBeLessThan(cleaned.checkpoints);
    expect(capped.bytes).toBeLessThan(cleaned.bytes);
    expect(await prompts()).toBeLessThan(2);
  });

  it("reviews a turn's changes and reverts one hunk and one file, each undoable", async () => {
    h = await createHarness({ capabilities: defaultCapabilities });
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n') + '\n';
    await put(h.workspace, 'long.txt', lines);
    await put(h.workspace, 'other.txt', 'other\n');
    h.server.enqueue(
      toolStep(callChunk('Bash', { command: "sed -i -e 's/^line 2$/LINE 2/' -e 's/^line 25$/LINE 25/' long.txt && echo more >> other.txt" })),
      textReply('ok'),
    );
    const turnId = await h.run('edit');
    const review = await h.core.handlers.reviewChanges({ sessionId: h.session.id, turnId });
    expect(review.files.map((f) => [f.path, f.hunks.length])).toEqual([
      ['long.txt', 2],
      ['other.txt', 1],
    ]);
    const { revertId } = await h.core.handlers.revertChange({ sessionId: h.session.id, turnId, path: 'long.txt', hunk: 1 });
    expect(await read(h, 'long.txt')).toBe(lines.replace('line 2\n', 'LINE 2\n'));
    await h.core.handlers.undoRevert({ sessionId: h.session.id, revertId });
    expect(await read(h, 'long.txt')).toBe(lines.replace('line 2\n', 'LINE 2\n').replace('line 25\n', 'LINE 25\n'));
    await h.core.handlers.revertChange({ sessionId: h.session.id, turnId, path: 'other.txt' });
    expect(await read(h, 'other.txt')).toBe('other\n');
    const session = await h.core.handlers.reviewChanges({ sessionId: h.session.id });
    expect(session.files.map((f) => f.path)).toEqual(['long.txt']);
    await expect(h.core.handlers.revertChange({ sessionId: h.session.id, turnId, path: '../outside.txt' })).rejects.toThrow(/not a path inside the workspace/);
  });

  it("a turn's review shows what remains after a revert, the hunk again after its undo, and the turn's own diff once something else changed the file", async () => {
    h = await createHarness({ capabilities: defaultCapabilities });
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n') + '\n';
    await put(h.workspace, 'long.txt', lines);
    await put(h.workspace, 'other.txt', 'other\n');
    h.server.enqueue(
      toolStep(callChunk('Bash', { command: "sed -i -e 's/^line 2$/LINE 2/' -e 's/^line 25$/LINE 25/' long.txt && echo more >> other.txt" })),
      textReply('ok'),
    );
    const turnId = await h.run('edit');
    const review = async () =>
      (await h!.core.handlers.reviewChanges({ sessionId: h!.session.id, turnId })).files.map((f) => [
        f.path,
        f.hunks
          .map((x) =>
            x.lines
              .filter((l) => l.startsWith('+'))
              .map((l) => l.slice(1))
              .join(),
          )
          .join(' | '),
        f.changedSince,
      ]);
    const revert = (path: string, hunk?: number) =>
      h!.core.handlers.revertChange({ sessionId: h!.session.id, turnId, path, ...(hunk !== undefined ? { hunk } : {}) });
    expect(await review()).toEqual([
      ['long.txt', 'LINE 2 | LINE 25', false],
      ['other.txt', 'more', false],
    ]);

    const second = await revert('long.txt', 1);
    expect(await review()).toEqual([
      ['long.txt', 'LINE 2', false],
      ['other.txt', 'more', false],
    ]);
    // Hunks are numbered as listed: hunk 0 is now the turn's only remaining change to long.txt.
    const first = await revert('long.txt', 0);
    expect(await read(h, 'long.txt')).toBe(lines);
    expect(await review()).toEqual([['other.txt', 'more', false]]);
    await expect(revert('long.txt', 0)).rejects.toThrow(/did not change in that turn/);

    await h.core.handlers.undoRevert({ sessionId: h.session.id, revertId: first.revertId });
    expect(await review()).toEqual([
      ['long.txt', 'LINE 2', false],
      ['other.txt', 'more', false],
    ]);
    await h.core.handlers.undoRevert({ sessionId: h.session.id, revertId: second.revertId });
    expect(await read(h, 'long.txt')).toBe(lines.replace('line 2\n', 'LINE 2\n').replace('line 25\n', 'LINE 25\n'));
    expect(await review()).toEqual([
      ['long.txt', 'LINE 2 | LINE 25', false],
      ['other.txt', 'more', false],
    ]);
    await revert('other.txt');
    expect(await review()).toEqual([['long.txt', 'LINE 2 | LINE 25', false]]);

    // Changed by something else after that (an edit outside Deft, then another turn): the turn's own diff, marked.
    await put(h.workspace, 'long.txt', lines.replace('line 2\n', 'LINE 2\n').replace('line 25\n', 'LINE 25\n').replace('line 9\n', 'nine\n'));
    h.server.enqueue(textReply('looked'));
    await h.run('look');
    expect(await review()).toEqual([['long.txt', 'LINE 2 | LINE 25', true]]);
  });
  it('a Write/Edit step looks only at its files, and what a background command changed meanwhile is still in the turn', async () => {
    h = await createHarness({ capabilities: defaultCapabilities });
    await setUp(h);
    h.server.enqueue(
      toolStep(
        callChunk('Read', { path: 'a.txt' }),
        callChunk('Read', { path: 'b.txt' }),
        callChunk('Bash', { command: 'printf bg > bg.txt', run_in_background: true, description: 'write bg.txt' }),
      ),
      toolStep(
        callChunk('Write', { path: 'a.txt', content: 'written by Write\n' }),
        callChunk('Edit', { path: 'b.txt', old_string: 'original b', new_string: 'edited b' }),
      ),
      // The last reply waits until the background command has written (what it writes after the turn's end is the next
      // turn's; a fixed pause was not enough on a loaded CI machine, where the shell took over 4 s to start).
      { ...textReply('Done.'), before: () => waitFor(() => existsSync(join(h!.workspace, 'bg.txt')), 60_000) },
    );
    const turnId = await h.run('write while a command runs');
    await settle(h);
    const changes = h.sessionEvents('turn.changes').find((e) => (e as SessionEventOf<'turn.changes'>).turnId === turnId) as SessionEventOf<'turn.changes'>;
    expect(changes.files.map((f) => f.path).sort()).toEqual(['a.txt', 'b.txt', 'bg.txt']);
    await h.core.handlers.rewind({ sessionId: h.session.id, turnId, scope: 'code', includeOutside: false });
    expect(await state(h, ['a.txt', 'b.txt', 'bg.txt'])).toEqual({
      'a.txt': { text: 'original a\n', mode: 0o644 },
      'b.txt': { text: 'original b\n', mode: 0o600 },
      'bg.txt': { text: null, mode: null },
    });
  });
  it('takes no end-of-turn checkpoint when the last tool step was captured in full and no background task runs', async () => {
    h = await createHarness({ capabilities: defaultCapabilities });
    await setUp(h);
    const store = await CheckpointStore.open(h.home, h.workspace);
    const kinds = async (turnId: string) => (await store.list(h!.session.id)).filter((c) => c.turnId === turnId).map((c) => c.kind);
    const changed = (turnId: string) =>
      (h!.sessionEvents('turn.changes').find((e) => (e as SessionEventOf<'turn.changes'>).turnId === turnId) as SessionEventOf<'turn.changes'>).files.map(
        (f) => f.path,
      );
    h.server.enqueue(toolStep(callChunk('Bash', { command: 'echo x >> b.txt' })), textReply('Appended.'));
    const quiet = await h.run('append');
    await settle(h);
    expect(await kinds(quiet)).toEqual(['turn', 'step']);
    expect(changed(quiet)).toEqual(['b.txt']);
    // A background task still running at the end: the end is checkpointed (what it wrote so far counts).
    const signal = join(h.home, 'go');
    h.server.enqueue(
      toolStep(
        callChunk('Bash', {
          command: `n=0; while [ ! -e '${signal}' ]; do n=$((n+1)); echo $n > tick.txt; sleep 0.05; done`,
          run_in_background: true,
          description: 'tick',
        }),
      ),
      toolStep(callChunk('Bash', { command: 'while [ ! -e tick.txt ]; do sleep 0.05; done; echo y >> b.txt' })),
      { ...textReply('Started.'), delayMs: 400 },
    );
    const busy = await h.run('start a job');
    // The first step gets its own checkpoint only if the job wrote tick.txt before that step ended (timing).
    const busyKinds = await kinds(busy);
    expect([busyKinds[0], busyKinds.at(-1)]).toEqual(['turn', 'turn-end']);
    expect(busyKinds.slice(1, -1)).toContain('step');
    // Before a step's calls, a checkpoint too when the job changed files since the last one (then that is not the step's).
    expect(busyKinds.slice(1, -1).every((kind) => kind === 'step' || kind === 'tools')).toBe(true);
    expect(changed(busy).sort()).toEqual(['b.txt', 'tick.txt']);
    await writeFile(signal, '');
    await settle(h);
  });
  it('a turn whose first writing step names its files looks at those only (no scan); what changed elsewhere before it stays outside the turn, also when a command follows', async () => {
    const git = await loggedGit();
    try {
      h = await createHarness({ capabilities: defaultCapabilities });
      await setUp(h);
      const changed = (turnId: string) =>
        (h!.sessionEvents('turn.changes').find((e) => (e as SessionEventOf<'turn.changes'>).turnId === turnId) as SessionEventOf<'turn.changes'>).files
          .map((f) => f.path)
          .sort();
      h.server.enqueue(toolStep(callChunk('Write', { path: 'new.txt', content: 'new\n' })), textReply('Written.'));
      await h.run('first');
      // Outside Deft, between turns: a new file and an edit.
      await put(h.workspace, 'e.txt', 'made by the user\n');
      await writeFile(join(h.workspace, 'c.sh'), '#!/bin/sh\necho edited by the user\n');
      await git.clear();
      h.server.enqueue(
        toolStep(callChunk('Read', { path: 'a.txt' })),
        toolStep(callChunk('Write', { path: 'a.txt', content: 'written by Write\n' })),
        textReply('Done.'),
      );
      const edit = await h.run('edit a');
      // No look at the whole workspace: no git status without a path (a.txt is in the store's HEAD: no git at all but the turn's diff).
      const calls = (await git.calls()).filter((line) => / status /.test(line));
      expect(calls).toEqual([]);
      expect(changed(edit)).toEqual(['a.txt']);
      const store = await CheckpointStore.open(h.home, h.workspace);
      expect((await store.list(h.session.id)).filter((c) => c.turnId === edit).map((c) => c.kind)).toEqual(['turn', 'step']);
      store.close();
      // Then a turn that writes a named file and runs a command: the command's look at the whole workspace finds the
      // user's files too, which are not the turn's.
      await put(h.workspace, 'f.txt', 'also made by the user\n');
      h.server.enqueue(
        toolStep(callChunk('Read', { path: 'b.txt' })),
        toolStep(callChunk('Edit', { path: 'b.txt', old_string: 'original b', new_string: 'edited b' })),
        toolStep(callChunk('Bash', { command: 'echo made > d.txt' })),
        textReply('Done.'),
      );
      const mixed = await h.run('edit b, make d');
      expect(changed(mixed)).toEqual(['b.txt', 'd.txt']);
      const preview = await h.core.handlers.previewRewind({ sessionId: h.session.id, turnId: edit, scope: 'code' });
      expect(preview.files.map((f) => [f.path, f.outside]).sort()).toEqual([
        ['a.txt', false],
        ['b.txt', false],
        ['c.sh', true],
        ['d.txt', false],
        ['e.txt', true],
        ['f.txt', true],
      ]);
      const result = await h.core.handlers.rewind({ sessionId: h.session.id, turnId: edit, scope: 'code', includeOutside: false });
      expect(result.keptOutside.sort()).toEqual(['c.sh', 'e.txt', 'f.txt']);
      expect(await state(h, ['a.txt', 'b.txt', 'd.txt', 'e.txt'])).toEqual({
        'a.txt': { text: 'original a\n', mode: 0o644 },
        'b.txt': { text: 'original b\n', mode: 0o600 },
        'd.txt': { text: null, mode: null },
        'e.txt': { text: 'made by the user\n', mode: 0o644 },
      });
      await h.core.handlers.undoRewind({ sessionId: h.session.id });
      expect(await read(h, 'a.txt')).toBe('written by Write\n');
      expect(await read(h, 'b.txt')).toBe('edited b\n');
      expect(await read(h, 'd.txt')).toBe('made\n');
    } finally {
      git.restore();
    }
  });
  it("a turn's Changed files counts the lines of every file it lists, also when files left out as changed outside bring later ones into the list", async () => {
    h = await createHarness({ capabilities: defaultCapabilities });
    await setUp(h);
    h.server.enqueue(toolStep(callChunk('Write', { path: 'new.txt', content: 'new\n' })), textReply('Written.'));
    await h.run('first');
    // Outside Deft, between turns: a file that sorts before the turn's own.
    await put(h.workspace, '0-outside.txt', 'made by the user\n');
    // The turn's checkpoint is narrowed to b.txt; the command's look at the whole workspace finds the user's file too.
    h.server.enqueue(
      toolStep(callChunk('Read', { path: 'b.txt' })),
      toolStep(callChunk('Edit', { path: 'b.txt', old_string: 'original b', new_string: 'edited b' })),
      // (The paths written out: a command whose paths only a shell expansion knows is asked about first.)
      toolStep(callChunk('Bash', { command: `echo x | tee ${Array.from({ length: 201 }, (_, i) => `m${100 + i}.txt`).join(' ')} > /dev/null` })),
      textReply('Done.'),
    );
    const turnId = await h.run('edit b, make 201 files');
    const event = h.sessionEvents('turn.changes').find((e) => (e as SessionEventOf<'turn.changes'>).turnId === turnId) as SessionEventOf<'turn.changes'>;
    // 203 files differ from the turn's checkpoint; the user's is not the turn's: 202, of which 200 are listed.
    expect(event.files).toHaveLength(200);
    expect(event.more).toBe(2);
    expect(event.files[0]).toEqual({ path: 'b.txt', status: 'modified', added: 1, removed: 1 });
    expect(event.files.at(-1)!.path).toBe('m298.txt');
    expect(event.files.slice(1).every((f) => f.status === 'added' && f.added === 1 && f.removed === 0)).toBe(true);
  });
  it('a text-only turn starts no git, yet is a rewind point at the files as the last turn left them', async () => {
    const git = await loggedGit();
    try {
      h = await createHarness({ capabilities: defaultCapabilities });
      await setUp(h);
      h.server.enqueue(toolStep(callChunk('Write', { path: 'new.txt', content: 'new\n' })), textReply('Written.'));
      const edit = await h.run('write a file');
      await git.clear();
      h.server.enqueue(textReply('Just words.'));
      const talk = await h.run('only talk');
      expect(await git.calls()).toEqual([]);
      // Still a point to rewind to, at the files as the last turn left them.
      const { prompts } = await h.core.handlers.listCheckpoints({ sessionId: h.session.id });
      expect(prompts.map((p) => p.text)).toEqual(['write a file', 'only talk']);
      await writeFile(join(h.workspace, 'a.txt'), 'changed by hand\n');
      const preview = await h.core.handlers.previewRewind({ sessionId: h.session.id, turnId: talk, scope: 'code' });
      expect(preview.files.map((f) => [f.path, f.outside])).toEqual([['a.txt', true]]);
      const store = await CheckpointStore.open(h.home, h.workspace);
      expect((await store.list(h.session.id)).filter((c) => c.turnId === edit).map((c) => c.kind)).toEqual(['turn', 'step']);
    } finally {
      git.restore();
    }
  });
});
