import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { tempDir } from '#test-support/harness';
import { remoteCliRig } from '#test-support/remote-cli';

// Issue 29: the OS sandbox on a remote workspace — bubblewrap there, with this machine's policy planned from facts
// read there. The remote sshd runs in a mount namespace of its own where the user's home is another folder
// (`remoteHome`), so what a command sees of ~/.ssh is the remote's, and where `path` shows `there`. The same server
// answers on a second port as a machine without bwrap on its PATH.

const rig = remoteCliRig('deft-remote-sb', { ripgrep: true, variant: { drop: (name) => name === 'bwrap' } });
let ws: string;
let outside: string;

beforeAll(async () => {
  await mkdir(join(rig.remoteHome, '.ssh'), { recursive: true, mode: 0o700 });
  await writeFile(join(rig.remoteHome, '.ssh', 'id_remote_secret'), 'REMOTE-PRIVATE-KEY\n', { mode: 0o600 });
  // A folder whose path holds another folder on the remote, with a link into .git there only.
  execFileSync('git', ['init', '-q', rig.there]);
  execFileSync('git', ['init', '-q', rig.path]);
  await symlink('.git', join(rig.there, 'g'));
});

beforeEach(async () => {
  // A folder both machines see at the same path.
  ws = await tempDir('deft-remote-sb-ws-');
  // Outside /tmp (private in the sandbox), a folder anyone could write to here.
  outside = await mkdtemp('/var/tmp/deft-remote-sb-outside-');
  execFileSync('git', ['init', '-q', ws]);
});
afterEach(async () => {
  await rm(outside, { recursive: true, force: true });
});

const run = (prompt: string, options: { folder?: string; variant?: boolean } = {}) =>
  rig.run(prompt, { mode: 'accept-edits', folder: options.folder ?? ws, ...(options.variant ? { variant: true } : {}) });

// A script file: the permission layer's string checks cannot see what it does, so the OS sandbox is the wall.
const PROBE = [
  'echo in > inside.txt && echo WROTE-INSIDE',
  `echo out > ${'$1'}/out.txt && echo WROTE-OUTSIDE`,
  'echo "[alias] x = !touch pwned" >> .git/config && echo WROTE-GIT-CONFIG',
  'ls -A ~/.ssh 2>&1; cat ~/.ssh/* 2>/dev/null',
  'echo DONE',
].join('\n');

describe('deft run --remote: the OS sandbox is bubblewrap on the remote', () => {
  it('a command writes in the workspace, not outside it nor .git/config, and sees nothing of ~/.ssh there', { timeout: 60_000 }, async () => {
    await writeFile(join(ws, 'probe.sh'), PROBE);
    const gitConfig = await readFile(join(ws, '.git', 'config'), 'utf8');
    rig.server.enqueue(toolStep(callChunk('Bash', { command: `sh probe.sh ${outside}`, description: 'probe the sandbox' })), textReply('Done.'));
    const result = await run('probe');
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/without the OS sandbox/);
    const output = result.toolResults[0]!;
    expect(output).toMatch(/DONE/);
    expect(output).toMatch(/WROTE-INSIDE/);
    expect(await readFile(join(ws, 'inside.txt'), 'utf8')).toBe('in\n');
    expect(output).not.toMatch(/WROTE-OUTSIDE/);
    expect(existsSync(join(outside, 'out.txt'))).toBe(false);
    expect(output).not.toMatch(/WROTE-GIT-CONFIG/);
    expect(await readFile(join(ws, '.git', 'config'), 'utf8')).toBe(gitConfig);
    expect(output).not.toMatch(/id_remote_secret|REMOTE-PRIVATE-KEY/);
    // Nothing the sandbox made for its mounts is left in the workspace.
    expect(existsSync(join(ws, '.deft'))).toBe(false);
    expect(existsSync(join(ws, '.claude'))).toBe(false);
  });

  it('without bwrap on the remote, the run says on stderr that commands run without the OS sandbox', { timeout: 60_000 }, async () => {
    rig.server.enqueue(toolStep(callChunk('Bash', { command: 'echo in > inside.txt', description: 'write a file' })), textReply('Done.'));
    const result = await run('write', { variant: true });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/commands run without the OS sandbox \(no OS sandbox there: bubblewrap \(bwrap\) is not installed on .*127\.0\.0\.1/);
    expect(result.stderr.match(/without the OS sandbox/g)).toHaveLength(1);
    // Unsandboxed, accept-edits asks for the command, and nobody can answer headless.
    expect(result.toolResults[0]).toMatch(/needs approval/);
  });

  it('without bwrap on the remote, a trusted folder’s hook runs there unsandboxed, said once', { timeout: 60_000 }, async () => {
    await mkdir(join(ws, '.deft'));
    const hook = { type: 'command', command: `echo out > ${outside}/hook-out.txt` };
    await writeFile(join(ws, '.deft', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [hook] }] } }));
    await rig.trust(ws, true);
    rig.server.enqueue(toolStep(callChunk('Bash', { command: 'true', description: 'nothing' })), textReply('Done.'));
    const result = await run('go', { variant: true });
    expect(result.code).toBe(0);
    expect(await readFile(join(outside, 'hook-out.txt'), 'utf8')).toBe('out\n');
    expect(result.stderr.match(/without the OS sandbox/g)).toHaveLength(1);
  });
});

describe('deft run --remote: the protected-path check resolves paths on the remote', () => {
  it('a link on the remote into .git is caught there, though this machine has no such link', { timeout: 60_000 }, async () => {
    const before = await readFile(join(rig.there, '.git', 'config'), 'utf8');
    rig.server.enqueue(toolStep(callChunk('Bash', { command: 'echo "[core]" >> g/config', description: 'append' })), textReply('Done.'));
    const result = await run('append', { folder: rig.path });
    expect(result.code).toBe(0);
    // This machine has no `g` at that path: only the remote's link makes it protected.
    expect(existsSync(join(rig.path, 'g'))).toBe(false);
    expect(result.toolResults[0]).toMatch(/"g\/config" in this command is protected: it is inside a \.git folder/);
    expect(await readFile(join(rig.there, '.git', 'config'), 'utf8')).toBe(before);
  });
});
