import { execFileSync } from 'node:child_process';
import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CoreContext, SessionHandle } from '#contract/capability';
import type { Environment, ScriptRequest } from '#contract/environment';
import { tempDir } from '#test-support/harness';
import { sshToTempHome } from '#test-support/ssh-home';
import { WorkspaceCheckpoints } from '../workspace';
import { REWIND_JOURNAL } from './journal';
import { RemoteCheckpointStore } from './remote-store';

// Issue 29: a rewind on a remote folder that a killed Deft or a dropped connection interrupts is finished when the
// store next opens (the local store's crash journal, written over SFTP beside the store there), and said so.

const remote = sshToTempHome('deft-cp-crash-home-');

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

const FILES = 40;
const name = (i: number) => `src/part${i % 4}/file${i}.txt`;

async function fill(workspace: string, content: (i: number) => string): Promise<void> {
  for (let i = 0; i < FILES; i++) {
    await mkdir(join(workspace, name(i), '..'), { recursive: true });
    await writeFile(join(workspace, name(i)), content(i));
  }
}

async function contents(workspace: string): Promise<string[]> {
  return Promise.all(Array.from({ length: FILES }, (_, i) => readFile(join(workspace, name(i)), 'utf8').catch(() => '<missing>')));
}

/**
 * The connection `link.current`, dropped (every connection of the server killed, and this one closed for good) just
 * before its first script that `matches`; a test sets `link.current` to a new connection for one that came back.
 */
function droppingAt(link: { current: Environment }, matches: string): Environment {
  let dropped = false;
  return new Proxy(link.current, {
    get(_target, key) {
      const target = link.current;
      if (key === 'runScript')
        return async (request: ScriptRequest) => {
          if (!dropped && request.script.includes(matches)) {
            dropped = true;
            await remote.killConnections();
            await (target as { close(): Promise<void> }).close();
          }
          return target.runScript!(request);
        };
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A workspace with two checkpoints, `old` and the current files (all changed, one deleted, one added), and the paths a rewind to `old` puts back. */
async function twoCheckpoints() {
  const workspace = await tempDir('deft-cp-crash-ws-');
  const home = await tempDir('deft-cp-crash-local-');
  dirs.push(workspace, home);
  const options = { lockDir: join(home, 'checkpoints'), key: `ssh://test${workspace}` };
  await fill(workspace, (i) => `old ${i}\n`);
  const store = await RemoteCheckpointStore.open(remote.ssh, workspace, options);
  const old = await store.locked(async () => store.record(await store.capture(), { session: 's', kind: 'turn' }));
  await fill(workspace, (i) => `new ${i}\n`);
  await rm(join(workspace, name(7)));
  await writeFile(join(workspace, 'created.txt'), 'created after');
  const current = await store.locked(async () => store.record(await store.capture(), { session: 's', kind: 'turn-end' }));
  const paths = (await store.changes(current.tree, old.tree)).map((c) => c.path);
  expect(paths).toHaveLength(FILES + 1);
  return { workspace, home, options, old, paths, gitDir: remote.here(store.places.gitDir) };
}

/** Half done: what was to be deleted is gone, the files are still the new ones; the journal there says what is left. */
async function expectHalfDone(workspace: string, gitDir: string): Promise<void> {
  await expect(stat(join(workspace, 'created.txt'))).rejects.toThrow();
  expect((await contents(workspace)).filter((c) => c.startsWith('new'))).toHaveLength(FILES - 1);
  expect(await readdir(gitDir)).toContain(REWIND_JOURNAL);
}

/** Finished: every file the old one, the added one gone, no journal or private index left, the store sound. */
async function expectFinished(workspace: string, gitDir: string): Promise<void> {
  expect(await contents(workspace)).toEqual(Array.from({ length: FILES }, (_, i) => `old ${i}\n`));
  await expect(stat(join(workspace, 'created.txt'))).rejects.toThrow();
  expect((await readdir(gitDir)).filter((n) => n === REWIND_JOURNAL || n.startsWith('deft-restore-index'))).toEqual([]);
  execFileSync('git', ['--git-dir', gitDir, 'fsck', '--strict', '--no-dangling']);
}

function sessionOf(id: string): SessionHandle & { told: string[] } {
  const told: string[] = [];
  return { id, told, emit: (event: { message?: string }) => told.push(event.message ?? '') } as unknown as SessionHandle & { told: string[] };
}

describe('remote checkpoints: an interrupted rewind', () => {
  it('a connection dropped in the middle of a rewind of many files: the next open finishes it and says so', { timeout: 60_000 }, async () => {
    const { workspace, home, options, old, paths, gitDir } = await twoCheckpoints();
    // A Deft rewinding on its own connection, which drops once the deletions are done and before the files are written.
    const link = { current: (await remote.connect()) as Environment };
    const rewinding = await RemoteCheckpointStore.open(droppingAt(link, 'checkout-index'), workspace, options);
    await expect(rewinding.locked(() => rewinding.restore(old.tree, paths))).rejects.toThrow(/could not be reached|closed|lost/);
    await expectHalfDone(workspace, gitDir);

    // The next Deft (a new connection) opens checkpoints there: the rewind is finished, and it is said.
    const core = { environment: await remote.connect(), home, workspace, place: { id: options.key }, now: () => Date.now() } as unknown as CoreContext;
    const checkpoints = new WorkspaceCheckpoints(core);
    const status = await checkpoints.status();
    expect(status.available).toBe(true);
    expect(status.recovered).toMatch(/A rewind on .* was interrupted .*: 41 paths put back\. The files as they were before it are in the checkpoint/);
    expect((await checkpoints.require()).recovered).toEqual({ paths: FILES + 1, problems: [] });
    await expectFinished(workspace, gitDir);

    // The first session to take a checkpoint is told in its transcript, once; the workspace is the old checkpoint's.
    const session = sessionOf('s');
    const after = await checkpoints.take(session, { kind: 'turn', turnId: 't9' }, true);
    await checkpoints.take(session, { kind: 'turn-end', turnId: 't9' }, true);
    expect(after?.tree).toBe(old.tree);
    expect(session.told).toHaveLength(1);
    expect(session.told[0]).toMatch(/was interrupted \(Deft stopped or the connection dropped\); it was finished/);
  });

  it('a rewind whose connection dropped is finished by the same Deft once the connection is back, before anything else', { timeout: 60_000 }, async () => {
    const { workspace, home, options, old, paths, gitDir } = await twoCheckpoints();
    const link = { current: (await remote.connect()) as Environment };
    const core = {
      environment: droppingAt(link, 'checkout-index'),
      home,
      workspace,
      place: { id: options.key },
      now: () => Date.now(),
    } as unknown as CoreContext;
    const checkpoints = new WorkspaceCheckpoints(core);
    const store = await checkpoints.require();
    await expect(store.locked(() => store.restore(old.tree, paths))).rejects.toThrow(/could not be reached|closed|lost/);
    await expectHalfDone(workspace, gitDir);

    // Connected again: the next checkpoint finishes the rewind first (it captures the rewound files) and says so.
    link.current = await remote.connect();
    const session = sessionOf('s');
    const next = await checkpoints.take(session, { kind: 'turn', turnId: 't2' }, true);
    await expectFinished(workspace, gitDir);
    expect(next?.tree).toBe(old.tree);
    expect(session.told).toHaveLength(1);
    expect(session.told[0]).toMatch(/41 paths put back/);
    expect((await checkpoints.status()).recovered).toMatch(/was interrupted/);
  });
});
