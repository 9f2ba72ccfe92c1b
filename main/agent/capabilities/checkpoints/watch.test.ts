import { mkdir, mkdtemp, readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEventOf } from '#protocol';
import type { Environment, TreeWatch } from '#contract/environment';
import { localEnvironment } from '#infra/environment/local/local-environment';
import { defaultCapabilities } from '../../capabilities';
import { createHarness } from '#test-support/harness';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { type LoggedGit, loggedGit as logGit } from '#test-support/logged-git';

// Checkpoints after a command through the file watcher (change-watch.ts): what git runs, what is captured, and the
// fall-backs to git's status when the watcher cannot be used.

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness | null = null;
let restoreGit: (() => void) | null = null;
afterEach(async () => {
  await h?.dispose();
  h = null;
  restoreGit?.();
  restoreGit = null;
});

/** A git that logs its arguments (DEFT_GIT), put back after the test. */
async function loggedGit(): Promise<LoggedGit> {
  const git = await logGit();
  restoreGit = git.restore;
  return git;
}

/** git's status over the whole workspace (no pathspec after `--`). */
const fullStatus = (calls: string[]) => calls.filter((c) => c.includes(' status ') && !c.includes(' -- '));

const changedFiles = (h: Harness, turnId: string) =>
  (h.sessionEvents('turn.changes').find((e) => (e as SessionEventOf<'turn.changes'>).turnId === turnId) as SessionEventOf<'turn.changes'>).files
    .map((f) => f.path)
    .sort();

/** The local machine with its tree watch replaced. */
function withTreeWatch(watchTree: Environment['watchTree']): Environment {
  return Object.assign(Object.create(localEnvironment()) as Environment, { watchTree });
}

async function commandTurns(h: Harness) {
  await writeFile(join(h.workspace, 'a.txt'), 'original a\n');
  await writeFile(join(h.workspace, 'b.txt'), 'original b\n');
  // A run without a window starts the watch before its first command (workspace.ts, WATCH_FROM_COMMAND).
  h.server.enqueue(toolStep(callChunk('Bash', { command: 'echo one >> a.txt' })), toolStep(callChunk('Bash', { command: 'true' })), textReply('Appended.'));
  const first = await h.run('append once');
  h.server.enqueue(toolStep(callChunk('Bash', { command: 'echo two >> b.txt && printf new > new.txt && rm a.txt' })), textReply('Changed.'));
  return { first };
}

describe('checkpoints after a command, with the file watcher', { timeout: 60_000 }, () => {
  it('runs no whole-workspace git status once the watch is live, captures what the command changed, and rewinds it', async () => {
    const git = await loggedGit();
    h = await createHarness({ capabilities: defaultCapabilities });
    const { first } = await commandTurns(h);
    expect(changedFiles(h, first)).toEqual(['a.txt']);
    await git.clear();
    const second = await h.run('change three files');
    // Before the watch, each of the turn's three checkpoints (before the turn, before the command, after it) ran one.
    expect(fullStatus(await git.calls())).toEqual([]);
    expect(changedFiles(h, second)).toEqual(['a.txt', 'b.txt', 'new.txt']);
    expect((await h.core.handlers.listCheckpoints({ sessionId: h.session.id })).status.watch).toBeUndefined();
    await h.core.handlers.rewind({ sessionId: h.session.id, turnId: second, scope: 'code', includeOutside: false });
    expect(await readFile(join(h.workspace, 'a.txt'), 'utf8')).toBe('original a\none\n');
    expect(await readFile(join(h.workspace, 'b.txt'), 'utf8')).toBe('original b\n');
    await expect(readFile(join(h.workspace, 'new.txt'))).rejects.toThrow();
  });

  it("a run whose first step is a command scans the workspace once: the watch starts before the turn's checkpoint", async () => {
    const git = await loggedGit();
    h = await createHarness({ capabilities: defaultCapabilities });
    await writeFile(join(h.workspace, 'a.txt'), 'original a\n');
    h.server.enqueue(toolStep(callChunk('Bash', { command: 'echo one >> a.txt' })), textReply('Appended.'));
    const first = await h.run('append once');
    // The checkpoint before the turn is the watch's starting point; the one before the command and the one after are narrowed.
    expect(fullStatus(await git.calls())).toHaveLength(1);
    expect(changedFiles(h, first)).toEqual(['a.txt']);
    await h.core.handlers.rewind({ sessionId: h.session.id, turnId: first, scope: 'code', includeOutside: false });
    expect(await readFile(join(h.workspace, 'a.txt'), 'utf8')).toBe('original a\n');
  });

  it('skips folders a .gitignore leaves out, yet sees what HEAD holds in one, and starts again when the rules change', async () => {
    h = await createHarness({ capabilities: defaultCapabilities });
    await mkdir(join(h.workspace, 'vendor'));
    await writeFile(join(h.workspace, 'vendor', 'lib.js'), 'v1\n');
    await mkdir(join(h.workspace, 'node_modules', 'dep'), { recursive: true });
    await writeFile(join(h.workspace, 'node_modules', 'dep', 'x.js'), 'x\n');
    await writeFile(join(h.workspace, '.gitignore'), 'node_modules/\n');
    const turn = async (command: string) => {
      h!.server.enqueue(toolStep(callChunk('Bash', { command })), textReply('Done.'));
      return changedFiles(h!, await h!.run(command));
    };
    // A first turn that runs no command: the store has a HEAD before the watch starts (without one nothing is skipped).
    h.server.enqueue(toolStep(callChunk('Write', { path: join(h.workspace, 'a.txt'), content: 'a' })), textReply('Written.'));
    expect(changedFiles(h, await h.run('write a'))).toEqual(['a.txt']);
    expect(await turn('printf b > b.txt && printf y > node_modules/dep/x.js')).toEqual(['b.txt']);
    // vendor/lib.js is in HEAD now; ignoring vendor/ leaves it captured (git's status reports what HEAD holds), so it is watched.
    expect(await turn('printf "node_modules/\\nvendor/\\n" > .gitignore')).toEqual(['.gitignore']);
    expect(await turn('printf v2 > vendor/lib.js && printf yy > node_modules/dep/x.js')).toEqual(['vendor/lib.js']);
    expect(await turn('printf v3 > vendor/lib.js')).toEqual(['vendor/lib.js']);
    // node_modules no longer ignored: the watch starts again and sees into it.
    expect(await turn('printf "vendor/\\n" > .gitignore')).toEqual(['.gitignore', 'node_modules/dep/x.js']);
    expect(await turn('printf z > node_modules/dep/x.js')).toEqual(['node_modules/dep/x.js']);
    await h.core.handlers.rewind({
      sessionId: h.session.id,
      turnId: (h.sessionEvents('turn.changes').at(-3) as SessionEventOf<'turn.changes'>).turnId,
      scope: 'code',
      includeOutside: false,
    });
    expect(await readFile(join(h.workspace, 'vendor', 'lib.js'), 'utf8')).toBe('v2');
  });

  it('an edit made outside Deft between turns is in the next checkpoint, as outside', async () => {
    h = await createHarness({ capabilities: defaultCapabilities });
    await commandTurns(h);
    const second = await h.run('change three files');
    await writeFile(join(h.workspace, 'b.txt'), 'edited by the user\n');
    h.server.enqueue(toolStep(callChunk('Bash', { command: 'printf x > c.txt' })), textReply('Made.'));
    const third = await h.run('make c');
    expect(changedFiles(h, third)).toEqual(['c.txt']);
    // Rewinding to before the second prompt: the user's edit (seen by the watch, in the third prompt's checkpoint) is outside.
    const preview = await h.core.handlers.previewRewind({ sessionId: h.session.id, turnId: second, scope: 'code' });
    expect(preview.files.map((f) => [f.path, f.outside]).sort()).toEqual([
      ['a.txt', false],
      ['b.txt', true],
      ['c.txt', false],
      ['new.txt', false],
    ]);
  });

  it('sees into folders made faster than the watch, moved in or renamed (it starts again when it may not)', async () => {
    h = await createHarness({ capabilities: defaultCapabilities });
    await commandTurns(h);
    await h.run('change three files');
    const outside = await mkdtemp(join(tmpdir(), 'deft-moved-in-'));
    const turn = async (command: string) => {
      h!.server.enqueue(toolStep(callChunk('Bash', { command })), textReply('Done.'));
      return changedFiles(h!, await h!.run(command));
    };
    expect(await turn('mkdir -p deep/er/est && printf a > deep/er/est/f.txt')).toEqual(['deep/er/est/f.txt']);
    expect(await turn('printf b > deep/er/est/f.txt')).toEqual(['deep/er/est/f.txt']);
    expect(await turn('mv deep renamed && printf c > renamed/er/est/f.txt')).toEqual(['deep/er/est/f.txt', 'renamed/er/est/f.txt']);
    expect(await turn('printf d > renamed/er/est/f.txt')).toEqual(['renamed/er/est/f.txt']);
    // A tree moved in from outside (by the user, between turns: a command's sandbox may not reach outside the workspace).
    await mkdir(join(outside, 'in', 'side'), { recursive: true });
    await writeFile(join(outside, 'in', 'side', 'g.txt'), 'moved in\n');
    await rename(join(outside, 'in'), join(h.workspace, 'brought'));
    expect(await turn('printf e > brought/side/g.txt')).toEqual(['brought/side/g.txt']);
    expect(await turn('printf f > brought/side/g.txt')).toEqual(['brought/side/g.txt']);
  });

  it('falls back to git status when the watcher cannot start, and says so once in the status', async () => {
    const git = await loggedGit();
    const environment = withTreeWatch(() => Promise.reject(new Error('The file watcher could not be loaded: no prebuilt module')));
    h = await createHarness({ capabilities: defaultCapabilities, environment });
    await commandTurns(h);
    await git.clear();
    const second = await h.run('change three files');
    expect(fullStatus(await git.calls()).length).toBeGreaterThanOrEqual(2);
    expect(changedFiles(h, second)).toEqual(['a.txt', 'b.txt', 'new.txt']);
    const { status } = await h.core.handlers.listCheckpoints({ sessionId: h.session.id });
    expect(status.available).toBe(true);
    expect(status.watch).toMatch(/scanning the workspace.*no prebuilt module/);
  });

  it('falls back to git status when the watch fails after it started (its fence never comes)', async () => {
    let watch: TreeWatch | null = null;
    let broken = false;
    const environment = withTreeWatch(async (root, options, onChanges) => {
      const real = await localEnvironment().watchTree!(root, options, onChanges);
      watch = {
        sync: () => (broken ? Promise.reject(new Error('The file watcher did not report its fence in time.')) : real.sync()),
        close: () => real.close(),
      };
      return watch;
    });
    h = await createHarness({ capabilities: defaultCapabilities, environment });
    await commandTurns(h);
    expect(watch).not.toBeNull();
    broken = true;
    const second = await h.run('change three files');
    expect(changedFiles(h, second)).toEqual(['a.txt', 'b.txt', 'new.txt']);
    expect((await h.core.handlers.listCheckpoints({ sessionId: h.session.id })).status.watch).toMatch(/fence in time/);
  });
});
