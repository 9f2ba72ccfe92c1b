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

/** `environment` with its connection dropped (every connection of the server killed, and this one closed) just before its first script that `matches`. */
function droppingAt(environment: Environment, matches: string): Environment {
  return new Proxy(environment, {
    get(target, key) {
      if (key === 'runScript')
        return async (request: ScriptRequest) => {
          if (request.script.includes(matches)) {
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

describe('remote checkpoints: an interrupted rewind', () => {
  it('a connection dropped in the middle of a rewind of many files: the next open finishes it and says so', { timeout: 60_000 }, async () => {
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

    // A Deft rewinding on its own connection, which drops once the deletions are done and before the files are written.
    const link = await remote.connect();
    const rewinding = await RemoteCheckpointStore.open(droppingAt(link, 'checkout-index'), workspace, options);
    await expect(rewinding.locked(() => rewinding.restore(old.tree, paths))).rejects.toThrow(/could not be reached|closed|lost/);
    // Half done: what was to be deleted is gone, the files are still the new ones; the journal there says what is left.
    await expect(stat(join(workspace, 'created.txt'))).rejects.toThrow();
    expect((await contents(workspace)).filter((c) => c.startsWith('new'))).toHaveLength(FILES - 1);
    const gitDir = remote.here(store.places.gitDir);
    expect(await readdir(gitDir)).toContain(REWIND_JOURNAL);

    // The next Deft (a new connection) opens checkpoints there: the rewind is finished, and it is said.
    const again = await remote.connect();
    const core = { environment: again, home, workspace, place: { id: options.key }, now: () => Date.now() } as unknown as CoreContext;
    const checkpoints = new WorkspaceCheckpoints(core);
    const status = await checkpoints.status();
    expect(status.available).toBe(true);
    expect(status.recovered).toMatch(/A rewind on .* was interrupted .*: 41 paths put back\. The files as they were before it are in the checkpoint/);
    const reopened = await checkpoints.require();
    expect(reopened.recovered).toEqual({ paths: FILES + 1, problems: [] });
    expect(await contents(workspace)).toEqual(Array.from({ length: FILES }, (_, i) => `old ${i}\n`));
    await expect(stat(join(workspace, 'created.txt'))).rejects.toThrow();
    const left = await readdir(gitDir);
    expect(left.filter((n) => n === REWIND_JOURNAL || n.startsWith('deft-restore-index'))).toEqual([]);
    execFileSync('git', ['--git-dir', gitDir, 'fsck', '--strict', '--no-dangling']);

    // The first session to take a checkpoint is told in its transcript, once; the workspace is the old checkpoint's.
    const told: string[] = [];
    const session = { id: 's', emit: (event: { message?: string }) => told.push(event.message ?? '') } as unknown as SessionHandle;
    const after = await checkpoints.take(session, { kind: 'turn', turnId: 't9' }, true);
    await checkpoints.take(session, { kind: 'turn-end', turnId: 't9' }, true);
    expect(after?.tree).toBe(old.tree);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/was interrupted \(Deft stopped or the connection dropped\); it was finished/);
  });
});
