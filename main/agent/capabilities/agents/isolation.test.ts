import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { createHarness } from '#test-support/harness';
import { runCli } from '../../../host/cli/cli';
import { describeSandboxed } from '#test-support/sandbox';
import { firstUserText } from '#test-support/mock-model-server';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { Worktrees } from '#infra/worktrees/worktrees';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

const git = (cwd: string, args: string[]) =>
  execFileSync('git', args, { cwd, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' } }).toString();

/** The harness's workspace as a git repository on `main` with one commit. */
async function repository(h: Harness): Promise<void> {
  git(h.workspace, ['init', '-q', '-b', 'main']);
  git(h.workspace, ['config', 'user.email', 'a@b.c']);
  git(h.workspace, ['config', 'user.name', 'A']);
  await writeFile(join(h.workspace, 'app.txt'), 'line 1\nline 2\n');
  git(h.workspace, ['add', '.']);
  git(h.workspace, ['commit', '-qm', 'first']);
}

const longAnswer = (head: string) => `${head}. ${'The sub-agent did what it was asked and reports the details of it here. '.repeat(4)}`;

function toolResults(h: Harness): string[] {
  return h.sessionEvents('tool.call.result').map((e) => (e as Extract<SessionEvent, { type: 'tool.call.result' }>).output);
}

// Many git processes per test: on a loaded machine they take longer than the default timeout.
describe('sub-agents in isolation (isolation: "worktree")', { timeout: 90_000 }, () => {
  it('an isolated sub-agent writes in its own worktree, never the main checkout; its result names the branch and files; merging brings the change', async () => {
    h = await createHarness();
    await repository(h);
    h.server.enqueue(
      toolStep(callChunk('Agent', { description: 'add a file', prompt: 'SUB-ISO: write new.txt', isolation: 'worktree' })),
      textReply('parent done'),
    );
    h.server.route('SUB-ISO', toolStep(callChunk('Write', { path: 'new.txt', content: 'from the sub-agent\n' })), textReply(longAnswer('Wrote new.txt')));
    await h.run('delegate in isolation');

    const result = toolResults(h).find((o) => o.startsWith('agent_id:'))!;
    expect(result).toMatch(/status: completed\nworktree: agent-add-a-file-[0-9a-f]{6}\n/);
    expect(result).toMatch(/branch: deft\/agent-add-a-file-[0-9a-f]{6} \(from main\)/);
    expect(result).toContain('changed_files: new.txt');
    const name = /worktree: (\S+)/.exec(result)![1]!;
    const path = /worktree_path: (\S+)/.exec(result)![1]!;
    // In its worktree (committed on its branch), not in the main checkout.
    expect(await readFile(join(path, 'new.txt'), 'utf8')).toBe('from the sub-agent\n');
    expect(existsSync(join(h.workspace, 'new.txt'))).toBe(false);
    expect(git(h.workspace, ['log', '--format=%s', `deft/${name}`, '-1'])).toContain('sub-agent');
    expect(git(path, ['status', '--porcelain'])).toBe('');

    // The parent (or the user) merges it the way `deft worktrees merge` does.
    const merged = await (await Worktrees.of(h.home, h.workspace)).merge(name);
    expect(merged).toMatchObject({ status: 'merged', files: ['new.txt'] });
    expect(await readFile(join(h.workspace, 'new.txt'), 'utf8')).toBe('from the sub-agent\n');
  });

  it("a worktree sub-agent's Write to the main checkout's absolute path is not allowed without the user (accept-edits)", async () => {
    h = await createHarness({ permissionMode: 'accept-edits' });
    await repository(h);
    const outside = join(realpathSync(h.workspace), 'escaped.txt');
    h.server.enqueue(
      toolStep(callChunk('Agent', { description: 'try to escape', prompt: 'SUB-ESC: write two files', isolation: 'worktree' })),
      textReply('parent done'),
    );
    h.server.route(
      'SUB-ESC',
      toolStep(callChunk('Write', { path: 'inside.txt', content: 'ok\n' })),
      toolStep(callChunk('Write', { path: outside, content: 'escaped\n' })),
      textReply(longAnswer('Tried both')),
    );
    await h.run('delegate');

    // Inside its worktree, accept-edits runs the edit; the main checkout is outside its workspace: it asks (and no one can here).
    const result = toolResults(h).find((o) => o.startsWith('agent_id:'))!;
    expect(result).toContain('changed_files: inside.txt');
    expect(existsSync(outside)).toBe(false);
    const requests = h.server.requests.filter((r) => firstUserText(r).includes('SUB-ESC'));
    const refusal = JSON.stringify(
      requests
        .at(-1)!
        .body.messages.filter((m) => m.role === 'tool')
        .at(-1),
    );
    expect(refusal).toContain('Accept-edits mode runs edits inside the workspace only; this one is outside it');
  });

  it('a background isolated sub-agent: its notification names the worktree, branch and changed files', async () => {
    h = await createHarness();
    await repository(h);
    h.server.enqueue(
      toolStep(callChunk('Agent', { description: 'bg change', prompt: 'SUB-BGISO: write bg.txt', run_in_background: true, isolation: 'worktree' })),
      textReply('started it'),
    );
    h.server.route('SUB-BGISO', toolStep(callChunk('Write', { path: 'bg.txt', content: 'bg\n' })), textReply(longAnswer('Wrote bg.txt')));
    await h.run('go');
    await h.core.settled(h.session.id);
    const notification = h.server.requests
      .flatMap((r) => r.body.messages)
      .map((m) => (typeof m.content === 'string' ? m.content : ''))
      .find((c) => c.includes('source_kind="background_task"'))!;
    expect(notification).toMatch(/branch: deft\/agent-bg-change-[0-9a-f]{6} \(from main\)/);
    expect(notification).toContain('changed_files: bg.txt');
    expect(existsSync(join(h.workspace, 'bg.txt'))).toBe(false);
  });

  it('refuses isolation outside a git repository, saying why', async () => {
    h = await createHarness();
    h.server.enqueue(toolStep(callChunk('Agent', { description: 'no repo', prompt: 'SUB-NOREPO: anything', isolation: 'worktree' })), textReply('ok'));
    await h.run('delegate');
    expect(toolResults(h).join('\n')).toMatch(/The sub-agent was not started: isolation "worktree" needs a git repository/);
    // No sub-agent conversation started.
    expect(h.server.requests.filter((r) => firstUserText(r).includes('SUB-NOREPO'))).toHaveLength(0);
  });

  it('a swarm of two isolated sub-agents: each on its own branch; merged one after another, the second conflict is reported', async () => {
    h = await createHarness();
    await repository(h);
    h.server.enqueue(
      toolStep(
        callChunk('AgentSwarm', {
          description: 'edit app',
          prompt_template: 'SWARM-{{item}}: change app.txt',
          items: ['one', 'two'],
          isolation: 'worktree',
        }),
      ),
      textReply('parent done'),
    );
    for (const item of ['one', 'two'])
      h.server.route(
        `SWARM-${item}`,
        // A file that exists is read before it is written.
        toolStep(callChunk('Read', { path: 'app.txt' })),
        toolStep(callChunk('Write', { path: 'app.txt', content: `line 1 by ${item}\nline 2\n` })),
        textReply(longAnswer(`Changed app.txt for ${item}`)),
      );
    await h.run('swarm in isolation');

    const report = toolResults(h).find((o) => o.startsWith('<agent_swarm_result>'))!;
    expect(report).toContain('completed: 2, failed: 0');
    const names = [...report.matchAll(/worktree: (\S+)/g)].map((m) => m[1]!);
    expect(names).toHaveLength(2);
    expect(new Set(names).size).toBe(2);
    expect([...report.matchAll(/changed_files: app\.txt/g)]).toHaveLength(2);
    // The main checkout is untouched; each branch has its own change.
    expect(await readFile(join(h.workspace, 'app.txt'), 'utf8')).toBe('line 1\nline 2\n');
    const contents = names.map((n) => git(h!.workspace, ['show', `deft/${n}:app.txt`]));
    expect(contents.sort()).toEqual(['line 1 by one\nline 2\n', 'line 1 by two\nline 2\n']);

    const trees = await Worktrees.of(h.home, h.workspace);
    expect(await trees.merge(names[0]!)).toMatchObject({ status: 'merged' });
    expect(await trees.merge(names[1]!)).toMatchObject({ status: 'conflict', files: ['app.txt'] });
  });
});

describe('worktrees of isolated sub-agents when their session is deleted', { timeout: 90_000 }, () => {
  it('go with it when nothing would be lost; one with work not on its base stays', async () => {
    h = await createHarness();
    await repository(h);
    h.server.enqueue(
      toolStep(
        callChunk('Agent', { description: 'look only', prompt: 'SUB-LOOK: read', isolation: 'worktree' }),
        callChunk('Agent', { description: 'write one', prompt: 'SUB-WRITE: write', isolation: 'worktree' }),
      ),
      textReply('parent done'),
    );
    h.server.route('SUB-LOOK', textReply(longAnswer('Looked')));
    h.server.route('SUB-WRITE', toolStep(callChunk('Write', { path: 'kept.txt', content: 'work\n' })), textReply(longAnswer('Wrote kept.txt')));
    await h.run('delegate twice');
    const trees = await Worktrees.of(h.home, h.workspace);
    const before = (await trees.list()).sort((a, b) => a.name.localeCompare(b.name));
    expect(before.map((t) => [t.name.replace(/-[0-9a-f]{6}$/, ''), t.session])).toEqual([
      ['agent-look-only', h.session.id],
      ['agent-write-one', h.session.id],
    ]);
    const [looked, wrote] = before as [(typeof before)[0], (typeof before)[0]];
    const deleted = await h.core.handlers.deleteSession({ sessionId: h.session.id });
    // The result says which were kept (branch and folder: the changes are there) and which went.
    expect(deleted.agentWorktrees?.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: looked.name, branch: `deft/${looked.name}`, path: looked.path, removed: true, reason: expect.stringContaining('removed with its branch') },
      { name: wrote.name, branch: `deft/${wrote.name}`, path: wrote.path, removed: false, reason: expect.stringContaining('1 commit main does not') },
    ]);
    expect((await trees.list()).map((t) => t.name)).toEqual([wrote.name]);
    // `deft worktrees` says the same: a sub-agent's, kept with its changes after its session was deleted.
    let listed = '';
    const env = { ...process.env, DEFT_HOME: h.home };
    await runCli(['worktrees'], { stdout: (t) => (listed += t), stderr: () => {}, env, cwd: h.workspace });
    expect(listed).toContain(`${wrote.name}`);
    expect(listed).toContain(`a sub-agent's, kept with its changes after its session was deleted (${wrote.path})`);
    expect(existsSync(looked.path)).toBe(false);
    expect(git(h.workspace, ['branch', '--list', '--format=%(refname:short)', 'deft/*']).trim()).toBe(`deft/${wrote.name}`);
  });
});

describeSandboxed("an isolated sub-agent's commands run in its worktree's OS sandbox", () => {
  it('accept-edits runs its sandboxed Bash without asking (sandbox.autoAllow): it writes in its worktree, never in the main checkout', {
    timeout: 90_000,
  }, async () => {
    h = await createHarness({ permissionMode: 'accept-edits' });
    await repository(h);
    // The path is decoded at run time: only the OS sandbox stands between the command and the main checkout.
    const outside = Buffer.from(join(realpathSync(h.workspace), 'escaped.txt')).toString('base64');
    const command = `echo in > inside.txt; echo more >> app.txt; node -e "require('fs').writeFileSync(Buffer.from('${outside}','base64').toString(), 'out')"; echo "escape=$?"`;
    h.server.enqueue(
      toolStep(callChunk('Agent', { description: 'run a command', prompt: 'SUB-BASH: run it', isolation: 'worktree' })),
      textReply('parent done'),
    );
    h.server.route('SUB-BASH', toolStep(callChunk('Bash', { command })), textReply(longAnswer('Ran it')));
    await h.run('delegate');

    expect(h.sessionEvents('approval.requested')).toHaveLength(0);
    const result = toolResults(h).find((o) => o.startsWith('agent_id:'))!;
    expect(result).toContain('changed_files: app.txt, inside.txt');
    const path = /worktree_path: (\S+)/.exec(result)![1]!;
    expect(await readFile(join(path, 'inside.txt'), 'utf8')).toBe('in\n');
    expect(existsSync(join(h.workspace, 'escaped.txt'))).toBe(false);
    expect(existsSync(join(h.workspace, 'inside.txt'))).toBe(false);
    expect(await readFile(join(h.workspace, 'app.txt'), 'utf8')).toBe('line 1\nline 2\n');
    const bashOutput = JSON.stringify(
      h.server.requests
        .filter((r) => firstUserText(r).includes('SUB-BASH'))
        .at(-1)!
        .body.messages.at(-1),
    );
    expect(bashOutput).toMatch(/escape=1/);
    expect(bashOutput).toContain("Deft's OS sandbox refused");
  });
});
