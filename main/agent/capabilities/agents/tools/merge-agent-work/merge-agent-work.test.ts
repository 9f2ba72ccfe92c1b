import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionEvent } from '#protocol';
import { createHarness } from '#test-support/harness';
import { firstUserText } from '#test-support/mock-model-server';
import { callChunk, textReply, toolStep } from '#test-support/mock-steps';
import { Worktrees } from '#infra/worktrees/worktrees';
import { waitFor } from '#test-support/wait';
import { webHost } from '../../../../../host/hosts';

type Harness = Awaited<ReturnType<typeof createHarness>>;
let h: Harness | undefined;
afterEach(async () => {
  await h?.dispose();
  h = undefined;
});

const gitEnv = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
const git = (cwd: string, args: string[]) => execFileSync('git', args, { cwd, env: gitEnv }).toString();

async function repository(h: Harness): Promise<void> {
  git(h.workspace, ['init', '-q', '-b', 'main']);
  git(h.workspace, ['config', 'user.email', 'a@b.c']);
  git(h.workspace, ['config', 'user.name', 'A']);
  await writeFile(join(h.workspace, 'app.txt'), 'line 1\nline 2\n');
  git(h.workspace, ['add', '.']);
  git(h.workspace, ['commit', '-qm', 'first']);
}

const longAnswer = (head: string) => `${head}. ${'The sub-agent did what it was asked and reports the details of it here. '.repeat(4)}`;
const results = (h: Harness) => h.sessionEvents('tool.call.result').map((e) => (e as Extract<SessionEvent, { type: 'tool.call.result' }>).output);
const lastResult = (h: Harness) => results(h).at(-1)!;

/** Run a swarm of isolated sub-agents (each item's steps from `steps`); returns this session's sub-agent worktrees. */
async function swarm(h: Harness, items: string[], steps: (item: string) => ReturnType<typeof toolStep>[]) {
  // One item: the Agent tool (a swarm takes two or more).
  const call =
    items.length === 1
      ? callChunk('Agent', { description: 'work', prompt: `SWARM-${items[0]}: do it`, isolation: 'worktree' })
      : callChunk('AgentSwarm', { description: 'work', prompt_template: 'SWARM-{{item}}: do it', items, isolation: 'worktree' });
  h.server.enqueue(toolStep(call), textReply('swarm done'));
  for (const item of items) h.server.route(`SWARM-${item}`, ...steps(item), textReply(longAnswer(`Did ${item}`)));
  await h.run('swarm in isolation');
  if (items.length > 1) expect(results(h).find((o) => o.startsWith('<agent_swarm_result>'))).toContain(`completed: ${items.length}, failed: 0`);
  else expect(results(h).find((o) => o.startsWith('agent_id:'))).toContain('status: completed');
  return (await (await Worktrees.of(h.home, h.workspace)).list()).filter((t) => t.session === h.session.id);
}

async function merge(h: Harness, args: Record<string, unknown>): Promise<string> {
  h.server.enqueue(toolStep(callChunk('MergeAgentWork', args)), textReply('merged'));
  await h.run('merge their work');
  return lastResult(h);
}

describe('MergeAgentWork', { timeout: 120_000 }, () => {
  it('merges a swarm of three isolated sub-agents one after another, each from its own branch, and removes their worktrees', async () => {
    h = await createHarness();
    await repository(h);
    const items = ['one', 'two', 'three'];
    const trees = await swarm(h, items, (item) => [toolStep(callChunk('Write', { path: `${item}.txt`, content: `by ${item}\n` }))]);
    expect(trees).toHaveLength(3);
    expect(new Set(trees.map((t) => t.branch)).size).toBe(3);
    // Order of the merges: as given.
    const ordered = items.map((item) => trees.find((t) => t.changedFiles.includes(`${item}.txt`))!);
    const out = await merge(h, { worktrees: ordered.map((t) => t.name) });
    expect(out).toMatch(/^Merged 3 of 3 sub-agents into main\./);
    for (const t of ordered) expect(out).toContain(`- ${t.name} (branch ${t.branch}): MERGED into main`);
    expect(out.indexOf(ordered[0]!.name)).toBeLessThan(out.indexOf(ordered[1]!.name));
    for (const item of items) expect(await readFile(join(h.workspace, `${item}.txt`), 'utf8')).toBe(`by ${item}\n`);
    expect(git(h.workspace, ['status', '--porcelain'])).toBe('');
    // Three merge commits on main, in order.
    expect(git(h.workspace, ['log', '--merges', '--format=%s', 'main']).trim().split('\n').reverse()).toEqual(
      ordered.map((t) => `Merge branch '${t.branch}' (Deft sub-agent)`),
    );
    // Nothing left to lose: the worktrees and their (merged) branches are gone.
    expect(out.match(/cleanup: removed its worktree and its branch \(merged\)/g)).toHaveLength(3);
    for (const t of ordered) expect(existsSync(t.path)).toBe(false);
    expect(git(h.workspace, ['branch', '--list', 'deft/*']).trim()).toBe('');
  });

  it('two sub-agents edit the same lines: the second is a conflict, reported, and leaves the checkout as the first merge left it', async () => {
    h = await createHarness();
    await repository(h);
    const trees = await swarm(h, ['a', 'b'], (item) => [
      toolStep(callChunk('Read', { path: 'app.txt' })),
      toolStep(callChunk('Write', { path: 'app.txt', content: `line 1 by ${item}\nline 2\n` })),
    ]);
    const [a, b] = ['a', 'b'].map((item) => trees.find((t) => git(h!.workspace, ['show', `${t.branch}:app.txt`]).includes(`by ${item}`))!);
    const out = await merge(h, { worktrees: [a!.branch, b!.name], squash: true, message: 'Sub-agent work' });
    expect(out).toMatch(/^Merged 1 of 2 sub-agents into main; 1 conflict \(.+: app\.txt\)\./);
    expect(out).toContain(`- ${a!.name} (branch ${a!.branch}): MERGED into main (squashed)`);
    expect(out).toContain(`- ${b!.name} (branch ${b!.branch}): CONFLICT in app.txt`);
    expect(out).toContain('Nothing of it was merged: your checkout is exactly as it was before this merge.');
    expect(out).toContain(`in ${b!.path} run \`git merge main\``);
    expect(out).toContain('include_later_commits: true');
    // The first merge's result, and nothing of the second: no markers, nothing staged, no merge in progress.
    expect(await readFile(join(h.workspace, 'app.txt'), 'utf8')).toBe('line 1 by a\nline 2\n');
    expect(git(h.workspace, ['status', '--porcelain'])).toBe('');
    expect(existsSync(join(h.workspace, '.git', 'MERGE_HEAD'))).toBe(false);
    expect(git(h.workspace, ['log', '--format=%s', 'main']).trim().split('\n')).toEqual(['Sub-agent work', 'first']);
    // The conflicting one keeps its worktree and branch; resolved by hand there, it merges with include_later_commits.
    expect(existsSync(b!.path)).toBe(true);
    expect(() => execFileSync('git', ['merge', '-q', 'main'], { cwd: b!.path, env: gitEnv, stdio: 'ignore' })).toThrow();
    await writeFile(join(b!.path, 'app.txt'), 'line 1 by a and b\nline 2\n');
    git(b!.path, ['commit', '-qam', 'resolved by hand']);
    // Without include_later_commits only what the sub-agent finished with is merged: still the conflict.
    expect(await merge(h, { worktrees: [b!.name] })).toContain('CONFLICT in app.txt');
    const resolved = await merge(h, { worktrees: [b!.name], include_later_commits: true });
    expect(resolved).toContain(`- ${b!.name} (branch ${b!.branch}): MERGED into main`);
    expect(resolved).toContain('commits added on its branch after it finished were included');
    expect(await readFile(join(h.workspace, 'app.txt'), 'utf8')).toBe('line 1 by a and b\nline 2\n');
  });

  it('refuses a branch Deft did not make for this session, merging nothing', async () => {
    h = await createHarness();
    await repository(h);
    git(h.workspace, ['checkout', '-qb', 'feature']);
    await writeFile(join(h.workspace, 'feature.txt'), 'x\n');
    git(h.workspace, ['add', '.']);
    git(h.workspace, ['commit', '-qm', 'feature']);
    git(h.workspace, ['checkout', '-q', 'main']);
    // A Deft worktree, but the user's (no sub-agent of this session).
    const mine = await (await Worktrees.of(h.home, h.workspace)).create({ name: 'users-own' });
    git(h.workspace, ['branch', 'deft/agent-forged-123456', 'feature']);
    for (const forged of ['feature', 'deft/agent-forged-123456', 'agent-forged-123456', mine.record.name, mine.record.branch]) {
      const out = await merge(h, { worktrees: [forged] });
      expect(out).toContain(`Nothing was merged: "${forged}" is not a worktree Deft made for this session's isolated sub-agents.`);
    }
    expect(existsSync(join(h.workspace, 'feature.txt'))).toBe(false);
    expect(git(h.workspace, ['log', '--format=%s', 'main']).trim()).toBe('first');
  });
});

describe('MergeAgentWork against a sub-agent that moves its branch or its .git file', { timeout: 120_000 }, () => {
  it('merges the commit recorded when the sub-agent finished, not where its rewritten ref or .git file points', async () => {
    h = await createHarness();
    await repository(h);
    const [tree] = await swarm(h, ['one'], () => [toolStep(callChunk('Write', { path: 'mine.txt', content: 'the work\n' }))]);
    const t = tree!;
    // What a process left behind could do after it finished: point its branch at other work (a commit on top of the
    // base, so it "builds on" it), and its .git file at another repository.
    git(h.workspace, ['checkout', '-qb', 'evil']);
    await writeFile(join(h.workspace, 'evil.txt'), 'evil\n');
    git(h.workspace, ['add', '.']);
    git(h.workspace, ['commit', '-qm', 'evil']);
    git(h.workspace, ['checkout', '-q', 'main']);
    git(h.workspace, ['update-ref', `refs/heads/${t.branch}`, 'evil']);
    const other = await mkdtemp(join(tmpdir(), 'deft-other-'));
    git(other, ['init', '-q', '-b', 'main']);
    await writeFile(join(t.path, '.git'), `gitdir: ${join(other, '.git')}\n`);

    const out = await merge(h, { worktrees: [t.name] });
    expect(out).toContain(`- ${t.name} (branch ${t.branch}): MERGED into main`);
    expect(out).toContain('its branch now points elsewhere');
    expect(await readFile(join(h.workspace, 'mine.txt'), 'utf8')).toBe('the work\n');
    expect(existsSync(join(h.workspace, 'evil.txt'))).toBe(false);
    // Its worktree (whose .git no longer leads back) is kept, and so is the branch it was made to point at.
    expect(out).toContain('its .git file no longer names the git folder Deft made for it');
    expect(existsSync(t.path)).toBe(true);
    expect(git(h.workspace, ['rev-parse', '--verify', '-q', 'evil']).trim()).not.toBe('');
    // include_later_commits does not take a branch moved elsewhere either.
    git(h.workspace, ['reset', '-q', '--hard', 'HEAD~1']);
    const later = await merge(h, { worktrees: [t.name], include_later_commits: true });
    expect(later).toContain('NOT MERGED: its branch no longer builds on the commit recorded when it finished');
    expect(existsSync(join(h.workspace, 'evil.txt'))).toBe(false);
  });

  it('a branch ref made a symbolic ref to main does not move main when its work is committed; its own work alone is merged', async () => {
    h = await createHarness();
    await repository(h);
    const mainTip = git(h.workspace, ['rev-parse', 'main']).trim();
    // While it runs, the sub-agent's command makes its branch a symbolic ref to main.
    const [t] = await swarm(h, ['sym'], () => [
      toolStep(callChunk('Write', { path: 'sym.txt', content: 'sym\n' })),
      // (Through node: a command line with $(…) would need an approval nobody can give headless.)
      toolStep(
        callChunk('Bash', {
          command: `node -e "const x = require('child_process').execSync; const b = x('git symbolic-ref --short HEAD').toString().trim(); x('git symbolic-ref refs/heads/' + b + ' refs/heads/main'); console.log('made-' + 'symbolic')"`,
        }),
      ),
    ]);
    const bash = h.server.requests
      .filter((r) => firstUserText(r).includes('SWARM-sym'))
      .at(-1)!
      .body.messages.at(-1);
    expect(JSON.stringify(bash)).toContain('made-symbolic');
    // Committing its changes replaced the symbolic ref by its commit: main did not move.
    expect(git(h.workspace, ['rev-parse', 'main']).trim()).toBe(mainTip);
    expect(git(h.workspace, ['show', `${t!.branch}:sym.txt`])).toBe('sym\n');
    const out = await merge(h, { worktrees: [t!.name] });
    expect(out).toContain(`- ${t!.name} (branch ${t!.branch}): MERGED into main`);
    expect(git(h.workspace, ['rev-parse', 'main^1']).trim()).toBe(mainTip);
    expect(git(h.workspace, ['diff', '--name-only', mainTip, 'main']).trim()).toBe('sym.txt');
  });
});

describe('MergeAgentWork is a write', { timeout: 120_000 }, () => {
  it('asks for approval in ask mode (saying what it merges), merges once approved; plan mode refuses it', async () => {
    h = await createHarness({ host: webHost });
    await repository(h);
    const [t] = await swarm(h, ['ok'], () => [toolStep(callChunk('Write', { path: 'ok.txt', content: 'ok\n' }))]);
    await h.core.handlers.setPermissionMode({ sessionId: h.session.id, mode: 'ask' });
    h.server.enqueue(toolStep(callChunk('MergeAgentWork', { worktrees: [t!.name], cleanup: false })), textReply('merged'));
    await h.core.handlers.sendPrompt({ sessionId: h.session.id, text: 'merge it' });
    const request = await waitFor(
      () =>
        h!.sessionEvents('approval.requested').find((e) => (e as { toolName?: string }).toolName === 'MergeAgentWork') as
          | Extract<SessionEvent, { type: 'approval.requested' }>
          | undefined,
    );
    expect(request.description).toBe(`Merge ${t!.branch} into main`);
    expect(existsSync(join(h.workspace, 'ok.txt'))).toBe(false);
    await h.core.handlers.answerApproval({ sessionId: h.session.id, requestId: request.requestId, answer: { decision: 'approve', scope: 'once' } });
    await waitFor(() => results(h!).some((o) => o.startsWith('Merged 1 of 1')));
    await h.core.settled(h.session.id);
    expect(await readFile(join(h.workspace, 'ok.txt'), 'utf8')).toBe('ok\n');

    // Plan mode: a write, refused.
    await h.core.handlers.setPermissionMode({ sessionId: h.session.id, mode: 'yolo' });
    h.server.enqueue(toolStep(callChunk('EnterPlanMode', {})), textReply('planning'));
    await h.run('plan');
    const out = await merge(h, { worktrees: [t!.name] });
    expect(out).toContain('Plan mode is active, so MergeAgentWork cannot run');
  });
});
