import { existsSync } from 'node:fs';
import { mkdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { tempDir } from '#test-support/harness';
import { remoteAttackTargets, remoteCliRig } from '#test-support/remote-cli';

// Issue 29: on a remote folder its own hooks run on the remote machine (once that folder is trusted), the user's own
// on this one. The sshd runs in a mount namespace of its own: a hook proves where it ran by the mount namespace it
// saw (`/proc/self/ns/mnt`), and the remote folder (`there`) shows at `path` only there.

const rig = remoteCliRig('deft-remote-hooks');
let marks: string;
let hereNs: string;

beforeAll(async () => {
  hereNs = await readlink('/proc/self/ns/mnt');
});

beforeEach(async () => {
  marks = await tempDir('deft-remote-hooks-marks-');
  for (const dir of [rig.there, rig.path]) {
    for (const name of ['.deft', 'hook-ns.txt', 'hook-input.json']) await rm(join(dir, name), { recursive: true, force: true });
    await mkdir(join(dir, '.deft'));
  }
  // The remote repository's hook: where it ran, and what it was told on stdin, written into the folder it ran in.
  const workspaceHook = {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'readlink /proc/self/ns/mnt > hook-ns.txt; cat > hook-input.json' }] }],
  };
  await writeFile(join(rig.there, '.deft', 'settings.json'), JSON.stringify({ hooks: workspaceHook }));
  // This machine's folder at the same path has a hook of its own: it must never run for the remote session.
  const localHook = { PreToolUse: [{ hooks: [{ type: 'command', command: `touch ${join(marks, 'local-folder-hook')}` }] }] };
  await writeFile(join(rig.path, '.deft', 'settings.json'), JSON.stringify({ hooks: localHook }));
});

async function run(prompt: string) {
  rig.server.enqueue(toolStep(callChunk('Bash', { command: 'true', description: 'nothing' })), textReply('Done.'));
  return rig.run(prompt);
}

describe('deft run --remote: hooks', () => {
  it('an untrusted remote folder’s hooks do not run, anywhere', { timeout: 60_000 }, async () => {
    // Trusting this machine's folder of the same path trusts nothing there.
    await writeFile(join(rig.home, 'trust.json'), JSON.stringify({ folders: { [rig.path]: { trusted: true } } }));
    const result = await run('go');
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('not trusted, so its own hooks do not run');
    expect(existsSync(join(rig.there, 'hook-ns.txt'))).toBe(false);
    expect(existsSync(join(rig.path, 'hook-ns.txt'))).toBe(false);
    expect(existsSync(join(marks, 'local-folder-hook'))).toBe(false);
  });

  it('a trusted remote folder’s hook runs on the remote machine with the event on stdin; the user’s own runs here', { timeout: 60_000 }, async () => {
    await rig.trust();
    const userHook = { PreToolUse: [{ hooks: [{ type: 'command', command: `readlink /proc/self/ns/mnt > ${join(marks, 'user-ns.txt')}` }] }] };
    await writeFile(join(rig.home, 'settings.json'), JSON.stringify({ hooks: userHook }));
    const result = await run('go');
    expect(result.code).toBe(0);
    // The workspace's hook: in the remote folder, in the sshd's mount namespace, told the event.
    const remoteNs = (await readFile(join(rig.there, 'hook-ns.txt'), 'utf8')).trim();
    expect(remoteNs).not.toBe(hereNs);
    expect(existsSync(join(rig.path, 'hook-ns.txt'))).toBe(false);
    const input = JSON.parse(await readFile(join(rig.there, 'hook-input.json'), 'utf8')) as Record<string, unknown>;
    expect(input).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'Bash', cwd: rig.path });
    // The user's own hook: on this machine.
    expect((await readFile(join(marks, 'user-ns.txt'), 'utf8')).trim()).toBe(hereNs);
    // This machine's folder of the same path is not the workspace: its hook never ran.
    expect(existsSync(join(marks, 'local-folder-hook'))).toBe(false);
  });
});

// Issue 29: a remote folder's own hook runs in that machine's sandbox (bubblewrap there), as a local folder's does here,
// unless its entry says "sandbox": false. The attack: a repository's hook writing outside the folder (to /var/tmp:
// /tmp is private in the sandbox), reading ~/.ssh there, reaching a port on the network.
describe('deft run --remote: the folder’s hooks run in the sandbox there', () => {
  const targets = remoteAttackTargets(rig, 'deft-remote-hooks-outside-');
  beforeEach(async () => {
    await rm(join(rig.there, 'attack.log'), { force: true });
  });

  const attack = (sandbox?: boolean) => {
    const net = `node -e "require('net').connect(${targets.port}, '127.0.0.1').on('connect', () => { console.log('NET-OPEN'); process.exit(0); }).on('error', (e) => { console.log('no net: ' + e.code); process.exit(0); })"`;
    const command = [
      `echo pwned > ${targets.outside}/hook-out.txt && echo WROTE-OUTSIDE`,
      'cat ~/.ssh/id_remote_secret',
      net,
      'echo "TMPDIR=$TMPDIR"',
      'echo DONE',
    ];
    const hook = { type: 'command', command: `{ ${command.join('; ')}; } > attack.log 2>&1`, ...(sandbox === undefined ? {} : { sandbox }) };
    return writeFile(join(rig.there, '.deft', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [hook] }] } }));
  };

  it('a trusted folder’s hook cannot write outside it, read ~/.ssh there or reach the network', { timeout: 60_000 }, async () => {
    await rig.trust();
    await attack();
    const result = await run('go');
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/without the OS sandbox/);
    const log = await readFile(join(rig.there, 'attack.log'), 'utf8');
    // It ran, there, in the sandbox's temp folder on that machine.
    expect(log).toMatch(/DONE/);
    expect(log).toMatch(/TMPDIR=\/tmp\/deft-sandbox-/);
    expect(log).not.toMatch(/WROTE-OUTSIDE/);
    expect(existsSync(join(targets.outside, 'hook-out.txt'))).toBe(false);
    expect(log).not.toMatch(/REMOTE-PRIVATE-KEY/);
    expect(log).not.toMatch(/NET-OPEN/);
    expect(targets.connections).toBe(0);
  });

  it('"sandbox": false takes a trusted folder’s hook out of it, as on this machine', { timeout: 60_000 }, async () => {
    await rig.trust();
    await attack(false);
    const result = await run('go');
    expect(result.code).toBe(0);
    const log = await readFile(join(rig.there, 'attack.log'), 'utf8');
    expect(log).toMatch(/DONE/);
    expect(log).toMatch(/WROTE-OUTSIDE/);
    expect(await readFile(join(targets.outside, 'hook-out.txt'), 'utf8')).toBe('pwned\n');
    expect(log).toMatch(/REMOTE-PRIVATE-KEY/);
    expect(log).toMatch(/NET-OPEN/);
  });
});
