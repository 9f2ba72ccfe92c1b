import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { type MockReply, firstUserText } from '#test-support/mock-model-server';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { freshRemoteRepository, remoteCliRig, remoteCore } from '#test-support/remote-cli';

// Issues 29 + 30: a sub-agent with `isolation: "worktree"` on a REMOTE folder works in a worktree made on that machine
// (under ~/.deft/worktrees there, git run there), and MergeAgentWork merges its recorded commit into the remote
// checkout there. This machine's folder of the same path and this machine's Deft home get no worktree.

const rig = remoteCliRig('deft-remote-iso');

/** git on the repository as this machine sees it (`there`): only to look, never what Deft runs. */
const look = (args: readonly string[]) => execFileSync('git', ['-C', rig.there, ...args], { encoding: 'utf8' });

const longAnswer = (head: string) => `${head}. ${'The sub-agent did what it was asked and reports the details of it here. '.repeat(4)}`;

/** A model step decided when it is asked: its calls built from the tool results the request carries. */
function stepFrom(build: (toolResults: string[]) => MockReply): MockReply {
  const step: MockReply = {
    before: async () => {
      const messages = rig.server.requests.at(-1)?.body.messages ?? [];
      step.chunks = build(messages.filter((m) => m.role === 'tool').map((m) => String(m.content))).chunks ?? [];
    },
  };
  return step;
}

beforeEach(async () => void (await freshRemoteRepository(rig)));

describe('isolated sub-agents on a remote folder', () => {
  it('the sub-agent works in a worktree on the remote machine; its result names the branch; MergeAgentWork merges it there', {
    timeout: 180_000,
  }, async () => {
    rig.server.enqueue(
      toolStep(callChunk('Agent', { description: 'add a file', prompt: 'SUB-REMOTE: write new.txt', isolation: 'worktree' })),
      stepFrom((results) => {
        const name = /^worktree: (\S+)$/m.exec(results.find((r) => r.startsWith('agent_id:')) ?? '')?.[1] ?? 'not-found';
        return toolStep(callChunk('MergeAgentWork', { worktrees: [name] }));
      }),
      textReply('Merged.'),
    );
    rig.server.route(
      'SUB-REMOTE',
      toolStep(callChunk('Write', { path: 'new.txt', content: 'from the sub-agent\n' })),
      // Its commands run in its worktree there: their cwd is that folder, on its branch.
      toolStep(callChunk('Bash', { command: 'pwd > where.txt && git rev-parse --abbrev-ref HEAD >> where.txt', description: 'where am I' })),
      // In its OS sandbox there, git may commit on its branch: its git folders, as Deft recorded them, are writable. (The
      // identity is given: this test's repository is under /tmp, which the sandbox makes private, so of the main
      // repository's git folder only what git writes is bound in, not its config.)
      toolStep(
        callChunk('Bash', {
          command: 'git add -A && git -c user.name=Sub -c user.email=sub@agent.invalid commit -qm "work of the sub-agent" && echo COMMITTED',
          description: 'commit',
        }),
      ),
      textReply(longAnswer('Wrote new.txt')),
    );
    const run = await rig.run('delegate in isolation');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('Merged.\n');
    const [agent, merged] = run.toolResults;
    expect(agent).toMatch(/status: completed\nworktree: agent-add-a-file-[0-9a-f]{6}\n/);
    expect(agent).toMatch(/worktree_path: \/\S+\/\.deft\/worktrees\/\S+\/agent-add-a-file-[0-9a-f]{6}\n/);
    expect(agent).toMatch(/branch: deft\/agent-add-a-file-[0-9a-f]{6} \(from main\)/);
    expect(agent).toContain('changed_files: new.txt, where.txt');
    const committed = rig.server.requests
      .filter((r) => firstUserText(r).includes('SUB-REMOTE'))
      .at(-1)!
      .body.messages.at(-1);
    expect(String(committed?.content)).toContain('COMMITTED');
    expect(merged).toMatch(/^Merged 1 of 1 sub-agent into main\./);
    expect(merged).toContain('cleanup: removed its worktree and its branch (merged)');

    // The merge landed in the remote checkout (a commit on main there, the working tree fast-forwarded to it).
    expect(await readFile(join(rig.there, 'new.txt'), 'utf8')).toBe('from the sub-agent\n');
    expect(await readFile(join(rig.there, 'where.txt'), 'utf8')).toMatch(
      /^\/\S+\/\.deft\/worktrees\/\S+\/agent-add-a-file-[0-9a-f]{6}\ndeft\/agent-add-a-file-[0-9a-f]{6}\n$/,
    );
    expect(look(['status', '--porcelain'])).toBe('');
    expect(look(['log', '--format=%s', '-2'])).toMatch(/^Merge branch 'deft\/agent-add-a-file-[0-9a-f]{6}' \(Deft sub-agent\)\nwork of the sub-agent\n$/);
    // Its worktree and branch are gone there; nothing of it was ever made here.
    expect(look(['branch', '--list', 'deft/*'])).toBe('');
    const made = join(rig.remoteHome, '.deft', 'worktrees');
    for (const repo of await readdir(made)) expect((await readdir(join(made, repo))).filter((n) => n.startsWith('agent-'))).toEqual([]);
    expect(existsSync(join(rig.home, 'worktrees'))).toBe(false);
    expect(await readdir(rig.path)).toEqual(['notes.txt']);
    expect(await readFile(join(rig.path, 'notes.txt'), 'utf8')).toBe('local\n');
  });

  it('a sub-agent that changed nothing: its result says so; the remote checkout stays as it was; deleting the session removes its worktree there', {
    timeout: 180_000,
  }, async () => {
    rig.server.enqueue(
      toolStep(callChunk('Agent', { description: 'look only', prompt: 'SUB-LOOK: read notes.txt', isolation: 'worktree' })),
      textReply('Looked.'),
    );
    rig.server.route('SUB-LOOK', toolStep(callChunk('Read', { path: 'notes.txt' })), textReply(longAnswer('It says red')));
    const run = await rig.run('look in isolation');
    expect(run.code, run.stderr).toBe(0);
    expect(run.toolResults[0]).toContain('changed_files: (none)');
    expect(run.toolResults[0]).toMatch(/merge_hint: it changed nothing; deft worktrees discard agent-look-only-[0-9a-f]{6} --delete-branch removes it\./);
    expect(look(['status', '--porcelain'])).toBe('');
    expect(look(['log', '--format=%s'])).toBe('first\n');
    const name = /^worktree: (\S+)$/m.exec(run.toolResults[0]!)![1]!;
    expect(look(['branch', '--list', '--format=%(refname:short)', 'deft/*']).trim()).toBe(`deft/${name}`);

    // Deleting the session (the window's way: a core on the remote folder) takes its worktree along there, since
    // nothing would be lost; the branch goes too.
    const { core, close } = await remoteCore(rig);
    try {
      const [session] = (await core.handlers.listSessions({})).sessions;
      const deleted = await core.handlers.deleteSession({ sessionId: session!.id });
      expect(deleted.agentWorktrees).toEqual([expect.objectContaining({ name, branch: `deft/${name}`, removed: true })]);
    } finally {
      await close();
    }
    expect(look(['branch', '--list', 'deft/*'])).toBe('');
    const made = join(rig.remoteHome, '.deft', 'worktrees');
    for (const repo of await readdir(made)) expect(await readdir(join(made, repo))).toEqual([]);
  });

  it("a worktree sub-agent's Write to the remote main checkout's absolute path is not allowed without the user (accept-edits)", {
    timeout: 180_000,
  }, async () => {
    await rig.trust();
    const escaped = join(rig.path, 'escaped.txt');
    rig.server.enqueue(
      toolStep(callChunk('Agent', { description: 'try to escape', prompt: 'SUB-ESC: write two files', isolation: 'worktree' })),
      textReply('parent done'),
    );
    rig.server.route(
      'SUB-ESC',
      toolStep(callChunk('Write', { path: 'inside.txt', content: 'ok\n' })),
      // The remote main checkout's own path (the workspace there): outside the sub-agent's workspace, its worktree.
      toolStep(callChunk('Write', { path: escaped, content: 'escaped\n' })),
      // A script: the permission layer's string checks cannot see what it does, so accept-edits runs it sandboxed,
      // unasked; in its worktree's OS sandbox there, the main checkout is read-only.
      toolStep(callChunk('Write', { path: 'probe.sh', content: `echo x > ${join(rig.path, 'by-command.txt')}\necho "escape=$?"\n` })),
      toolStep(callChunk('Bash', { command: 'sh probe.sh', description: 'escape by a script' })),
      textReply(longAnswer('Tried all three')),
    );
    const run = await rig.run('delegate', { mode: 'accept-edits' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.toolResults[0]).toContain('changed_files: inside.txt, probe.sh');
    const asked = rig.server.requests.filter((r) => firstUserText(r).includes('SUB-ESC')).at(-1)!;
    const [, refusal, , command] = asked.body.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
    expect(command).toMatch(/Read-only file system/);
    expect(command).toMatch(/escape=[1-9]/);
    expect(existsSync(join(rig.there, 'by-command.txt'))).toBe(false);
    expect(refusal).toContain('Accept-edits mode runs edits inside the workspace only; this one is outside it');
    expect(existsSync(join(rig.there, 'escaped.txt'))).toBe(false);
    expect(existsSync(escaped)).toBe(false);
    expect(look(['status', '--porcelain'])).toBe('');
  });
});
