import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CoreContext, SessionHandle } from '#contract/capability';
import { type Environment, type ScriptRequest, errorCode } from '#contract/environment';
import { tempDir } from '#test-support/harness';
import { sshToTempHome } from '#test-support/ssh-home';
import { WorkspaceCheckpoints } from '../workspace';
import { RemoteCheckpointStore } from './remote-store';
import { runScript } from './remote-git';

// Issue 29, the cost of remote checkpoints: every remote process pays the login shell's start-up there (sshd runs
// `$SHELL -c`, and bash reads ~/.bashrc for it). A turn in which nothing changed starts none (the store's files read
// and written over SFTP); the git work of a capture runs on one helper shell per connection, framed so that no
// output or file name can forge its answers, and a helper that dies leaves the script to a process of its own.

const remote = sshToTempHome('deft-cp-procs-home-');

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function setup() {
  const workspace = await tempDir('deft-cp-procs-ws-');
  const home = await tempDir('deft-cp-procs-local-');
  dirs.push(workspace, home);
  return { workspace, home };
}

/** The checkpoints of a workspace as a core in a new process has them (a `deft run`). */
function checkpointsOf(home: string, workspace: string): WorkspaceCheckpoints {
  const core = { environment: remote.ssh, home, workspace, place: { id: `ssh://test${workspace}` }, now: () => Date.now() } as unknown as CoreContext;
  return new WorkspaceCheckpoints(core);
}

function sessionOf(id: string): SessionHandle & { errors: string[] } {
  const errors: string[] = [];
  return { id, errors, emit: (event: { message?: string }) => errors.push(event.message ?? '') } as unknown as SessionHandle & { errors: string[] };
}

const used = () => ({ ...remote.ssh.usage });
const since = (before: { execChannels: number; helperScripts: number }) => ({
  execChannels: remote.ssh.usage.execChannels - before.execChannels,
  helperScripts: remote.ssh.usage.helperScripts - before.helperScripts,
});
const gitDirHere = (gitDir: string) => remote.here(gitDir);

describe('remote checkpoints: remote processes', () => {
  it('a text-only turn starts no process there, in a new process or the same; what it writes is what git reads', { timeout: 60_000 }, async () => {
    const { workspace, home } = await setup();
    await writeFile(join(workspace, 'a.txt'), 'one\n');
    // The first turn in the workspace: the store is made and the workspace captured (by git there).
    const first = checkpointsOf(home, workspace);
    const taken = await first.take(sessionOf('s1'), { kind: 'turn', turnId: 't1' }, true);
    expect(taken?.seq).toBe(1);

    // The next `deft run` (a new process, a new session), a text-only turn: nothing changed, nothing runs there.
    const before = used();
    const next = checkpointsOf(home, workspace);
    const session = sessionOf('s2');
    const text = await next.takeUnchanged(session, { kind: 'turn', turnId: 't2' });
    const again = await next.takeUnchanged(session, { kind: 'turn', turnId: 't3' });
    expect(session.errors).toEqual([]);
    expect(since(before)).toEqual({ execChannels: 0, helperScripts: 0 });
    expect([text?.seq, again?.seq]).toEqual([1, 2]);
    expect(text?.tree).toBe(taken?.tree);

    // git there reads them as its own: the refs, their commits and trees, and HEAD.
    const store = await next.require();
    const gitDir = gitDirHere(store.places.gitDir);
    execFileSync('git', ['--git-dir', gitDir, 'fsck', '--strict', '--no-dangling']);
    expect((await store.list('s2')).map((c) => [c.seq, c.kind, c.turnId, c.tree])).toEqual([
      [1, 'turn', 't2', taken?.tree],
      [2, 'turn', 't3', taken?.tree],
    ]);
    expect(execFileSync('git', ['--git-dir', gitDir, 'rev-parse', 'HEAD']).toString().trim()).toBe(again?.commit);

    // A continued session in a new process: one script lists its checkpoints, the next one is written over SFTP.
    const continued = used();
    const third = checkpointsOf(home, workspace);
    expect((await third.takeUnchanged(session, { kind: 'turn', turnId: 't3b' }))?.seq).toBe(3);
    expect(since(continued).helperScripts).toBe(1);

    // An edit turn: its git work runs on the one helper shell (a channel opened once), not a login shell per script.
    const edit = used();
    await writeFile(join(workspace, 'a.txt'), 'two\n');
    const changed = await next.take(session, { kind: 'step', turnId: 't4', step: 1 });
    expect(changed?.seq).toBe(4);
    expect(since(edit).execChannels).toBe(0);
    expect(since(edit).helperScripts).toBeGreaterThan(0);
  });

  it('file names with newlines, quotes and a forged frame, and output that looks like one, do not break the framing', { timeout: 60_000 }, async () => {
    const { workspace, home } = await setup();
    const names = ['it\'s "quoted" $(x) `y`.txt', 'line\nDEFT-R 0 0 0 0\nbreak.txt', 'pct %s %% back.txt'];
    for (const [i, name] of names.entries()) await writeFile(join(workspace, name), `v${i}\nDEFT-R fake 0 99 99\n`);
    await mkdir(join(workspace, 'dir\nwith newline'));
    await writeFile(join(workspace, 'dir\nwith newline', "x'y"), 'deep\n');
    const store = await RemoteCheckpointStore.open(remote.ssh, workspace, { lockDir: join(home, 'checkpoints'), key: `ssh://t${workspace}` });
    const first = await store.locked(async () => store.record(await store.capture(), { session: 's', kind: 'turn' }));
    for (const name of names) await writeFile(join(workspace, name), 'changed\n');
    await rm(join(workspace, 'dir\nwith newline'), { recursive: true });
    const second = await store.locked(async () => store.record(await store.capture(), { session: 's', kind: 'step' }));
    const changes = await store.changes(first.tree, second.tree, true);
    expect(changes.map((c) => [c.path, c.status]).sort()).toEqual(
      [...names.map((n) => [n, 'modified']), ["dir\nwith newline/x'y", 'deleted']].sort((a, b) => a[0]!.localeCompare(b[0]!)),
    );
    const problems = await store.locked(() => store.restore(first.tree, [...names, "dir\nwith newline/x'y"]));
    expect(problems).toEqual([]);
    for (const [i, name] of names.entries()) expect(await readFile(join(workspace, name), 'utf8')).toBe(`v${i}\nDEFT-R fake 0 99 99\n`);
    expect(await readFile(join(workspace, 'dir\nwith newline', "x'y"), 'utf8')).toBe('deep\n');

    // The helper's own framing: every byte in and out, a forged header on both streams, an exit code.
    const input = Buffer.concat([Buffer.from('a\0b\'c"%s%%\\n\\\nDEFT-R x 0 1 1\n'), Buffer.from([0xff, 0xfe, 0, 10, 13])]);
    const result = await remote.ssh.runScript({
      script: 'cat; printf "\\nDEFT-R %s 0 0 0\\n" "$1"; printf "err\\0DEFT-R\\n" >&2; exit 7',
      args: ["arg 'one'\nDEFT-R"],
      cwd: workspace,
      input,
    });
    expect(result.code).toBe(7);
    expect(result.stdout).toEqual(Buffer.concat([input, Buffer.from("\nDEFT-R arg 'one'\nDEFT-R 0 0 0\n")]));
    expect(result.stderr).toEqual(Buffer.from('err\0DEFT-R\n'));
    const after = await remote.ssh.runScript({ script: 'printf ok', args: [], cwd: workspace });
    expect(after.stdout.toString()).toBe('ok');
  });

  it('a helper that dies fails its script clearly, which then runs as a process; a cancelled one is stopped; the next starts anew', {
    timeout: 60_000,
  }, async () => {
    const { workspace } = await setup();
    // Killing the helper from inside: the request fails with EHELPER…
    const killed = await remote.ssh.runScript({ script: 'kill -KILL $$', args: [], cwd: workspace }).catch((error: unknown) => error);
    expect(errorCode(killed)).toBe('EHELPER');
    expect((killed as Error).message).toMatch(/helper shell on .* ended/);
    // …and the store's scripts fall back to a process of their own (run again there: the marker is there the second time).
    const marker = join(workspace, 'marker');
    const before = used();
    const out = await runScript(remote.ssh, null, workspace, 'if [ -e "$1" ]; then echo fallback; exit 0; fi; : > "$1"; kill -KILL $$', [marker]);
    expect(out.stdout.toString().trim()).toBe('fallback');
    expect(since(before).execChannels).toBeGreaterThanOrEqual(2);
    // A cancelled script: answered at once, its helper (and the script's processes) stopped.
    const controller = new AbortController();
    const started = Date.now();
    const slow = remote.ssh.runScript({ script: 'sleep 30', args: [], cwd: workspace, signal: controller.signal }).catch((error: unknown) => error);
    setTimeout(() => controller.abort(), 300);
    expect(errorCode(await slow)).toBe('ECANCELED');
    expect(Date.now() - started).toBeLessThan(5_000);
    // The next request starts a new helper.
    expect((await remote.ssh.runScript({ script: 'echo "$1"', args: ['back'], cwd: workspace })).stdout.toString()).toBe('back\n');
  });

  it('a helper that dies after a checkpoint is recorded, before its answer, leaves exactly that one checkpoint', { timeout: 60_000 }, async () => {
    const { workspace, home } = await setup();
    await writeFile(join(workspace, 'a.txt'), 'one\n');
    const options = { lockDir: join(home, 'checkpoints'), key: `ssh://t${workspace}` };
    const first = await RemoteCheckpointStore.open(remote.ssh, workspace, options);
    const one = await first.locked(async () => first.record(await first.capture(), { session: 's', kind: 'turn' }));
    // A new process continuing the session (its next number unknown: git there records it), on a connection whose helper
    // is killed by the recording script itself, once its transaction took effect and before the answer is sent.
    let kills = 0;
    const dying = new Proxy(remote.ssh, {
      get(target, key) {
        if (key === 'runScript')
          return (request: ScriptRequest) => {
            const records = request.script.includes('commit-tree');
            if (records) kills++;
            return target.runScript({ ...request, script: records ? `${request.script}\nkill -KILL $$` : request.script });
          };
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as Environment;
    const second = await RemoteCheckpointStore.open(dying, workspace, options);
    await writeFile(join(workspace, 'a.txt'), 'two\n');
    const before = used();
    const two = await second.locked(async () => second.record(await second.capture(), { session: 's', kind: 'step', step: 1 }));
    expect(kills).toBe(1);
    // Run again as a process (an exec channel), which found the checkpoint made and answered with it.
    expect(since(before).execChannels).toBe(1);
    expect(two.seq).toBe(2);
    const listed = await first.list('s');
    expect(listed.map((c) => [c.seq, c.kind, c.commit])).toEqual([
      [1, 'turn', one.commit],
      [2, 'step', two.commit],
    ]);
    const gitDir = gitDirHere(first.places.gitDir);
    execFileSync('git', ['--git-dir', gitDir, 'fsck', '--strict', '--no-dangling']);
    expect(execFileSync('git', ['--git-dir', gitDir, 'rev-parse', 'HEAD']).toString().trim()).toBe(two.commit);
    // The next checkpoint takes the next number.
    const three = await second.locked(async () => second.record(await second.capture(), { session: 's', kind: 'turn-end' }));
    expect(three.seq).toBe(3);
  });
});
