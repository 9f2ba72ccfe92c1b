import { describe, expect, it } from 'vitest';
import type { PermissionMode, PlanState } from '#protocol';
import type { ResolvedCall } from '#contract/calls';
import { matchPathSubject } from '#infra/policies/rule-match';
import { resolve } from 'node:path';
import { policies, resolvedCall, shellCall } from '#test-support/resolved-call';
import type { Access, ToolPolicy } from '#contract/tool';
import { type DecisionContext, decide } from './engine';
import { type PermissionRule, parseRule } from './rules';

const places = { workspace: '/ws', home: '/home/dev/.deft', userHome: '/home/dev' };

/** The policies the real tools declare in their folders (tool-set.test.ts pins them), for the calls built here by name. */
const declared: Record<string, ToolPolicy> = {
  Write: policies.edit,
  Edit: policies.edit,
  TodoList: policies.self,
  AskUserQuestion: { approval: 'self', mainAgentOnly: true },
  CreateGoal: policies.goalStart,
};

function call(name: string, args: Record<string, unknown>, extra: { readOnly?: boolean; accesses?: Access[]; path?: string } = {}): ResolvedCall {
  // Bash resolves where its command runs (its cwd against the workspace) into its shell execution.
  if (name === 'Bash')
    return shellCall(String(args.command), { cwd: resolve(places.workspace, typeof args.cwd === 'string' ? args.cwd : '.') }, { approvalRule: name });
  const path = extra.path ?? (typeof args.path === 'string' ? args.path : undefined);
  return resolvedCall(
    name,
    args,
    {
      approvalRule: path ? `${name}(${path})` : name,
      ...(extra.readOnly ? { readOnly: true } : {}),
      ...(extra.accesses ? { accesses: extra.accesses } : path ? { accesses: [{ kind: 'file', operation: 'write', path }] } : {}),
      ...(path ? { matchesRule: (a: string) => matchPathSubject(a, { absolute: path }) } : {}),
    },
    declared[name],
  );
}

function rules(spec: Partial<Record<PermissionRule['decision'], string[]>>): PermissionRule[] {
  return (['allow', 'ask', 'deny'] as const).flatMap((decision) =>
    (spec[decision] ?? []).map((p) => {
      const parsed = parseRule(p);
      if (!parsed.ok) throw new Error(parsed.message);
      return { ...parsed.rule, decision, source: 'project' as const, file: '/ws/.deft/settings.json' };
    }),
  );
}

const ctx = (c: ResolvedCall, over: Partial<DecisionContext> = {}): DecisionContext => ({
  call: c,
  mode: 'ask',
  rules: [],
  sessionRules: [],
  plan: null,
  places,
  ...over,
});
const kind = async (c: ResolvedCall, over: Partial<DecisionContext> = {}) => (await decide(ctx(c, over))).kind;

const write = call('Write', { path: '/ws/src/a.ts', content: 'x' });
const outside = call('Write', { path: '/tmp/a.ts', content: 'x' });
const bash = call('Bash', { command: 'npm test' });
const read = call('Read', { path: '/ws/a.ts' }, { readOnly: true, accesses: [] });

describe('modes', () => {
  it('ask: read-only runs, writes and shell ask', async () => {
    expect(await kind(read)).toBe('allow');
    expect(await kind(write)).toBe('ask');
    expect(await kind(bash)).toBe('ask');
  });
  it('ask: a web fetch asks although it only reads, unless approved for the session', async () => {
    const fetch = resolvedCall(
      'FetchURL',
      { url: 'https://docs.example.com/a' },
      {
        readOnly: true,
        network: { url: 'https://docs.example.com/a', host: 'docs.example.com' },
        approvalRule: 'FetchURL(https://docs.example.com/*)',
        matchesRule: (a) => a === 'https://docs.example.com/*',
      },
    );
    expect(await kind(fetch)).toBe('ask');
    expect(await kind(fetch, { sessionRules: ['FetchURL(https://docs.example.com/*)'] })).toBe('allow');
    expect(await kind(fetch, { mode: 'yolo' })).toBe('allow');
    expect(await kind(fetch, { mode: 'accept-edits' })).toBe('ask');
    expect(await decide(ctx(fetch))).toMatchObject({ reason: expect.stringContaining('docs.example.com') });
  });
  it('a read-only call that sends only to a configured service (a web search) runs in every mode', async () => {
    const search = resolvedCall('WebSearch', { query: 'x' }, { readOnly: true, approvalRule: 'WebSearch(x)' });
    expect(await kind(search)).toBe('allow');
    expect(await kind(search, { rules: rules({ ask: ['WebSearch'] }) })).toBe('ask');
  });
  it('accept-edits: Write/Edit inside the workspace run; outside and shell ask', async () => {
    const mode: PermissionMode = 'accept-edits';
    expect(await kind(write, { mode })).toBe('allow');
    expect(await kind(call('Edit', { path: '/ws/b.ts' }), { mode })).toBe('allow');
    expect(await kind(outside, { mode })).toBe('ask');
    expect(await kind(bash, { mode })).toBe('ask');
    expect(await kind(call('FetchURL', { url: 'https://x' }), { mode })).toBe('ask');
  });
  it('yolo: everything runs except deny rules and protected paths', async () => {
    const mode: PermissionMode = 'yolo';
    expect(await kind(bash, { mode })).toBe('allow');
    expect(await kind(outside, { mode })).toBe('allow');
    expect(await kind(bash, { mode, rules: rules({ deny: ['Bash(npm *)'] }) })).toBe('deny');
    expect(await kind(call('Write', { path: '/ws/.git/config' }), { mode })).toBe('ask');
    expect(await kind(call('Bash', { command: 'echo x > .git/hooks/pre-commit' }), { mode })).toBe('ask');
  });
  it('yolo: a loop that only prints runs, whatever it prints (issue 35 item 5)', async () => {
    const mode: PermissionMode = 'yolo';
    for (const command of [
      'for i in 1 2 3; do echo "line $i of .git/config is fine"; done',
      'for i in $(seq 3); do echo "step $i"; done',
      `printf '%s\\n' "$HOME/.ssh"`,
    ])
      expect(await kind(call('Bash', { command }), { mode }), command).toBe('allow');
    expect(await kind(call('Bash', { command: 'for i in 1 2 3; do echo "line $i" > "$i/.git/config"; done' }), { mode })).toBe('ask');
  });
  it('refuses a recursive rm of the workspace in every mode, whatever the rules', async () => {
    const decision = await decide(ctx(call('Bash', { command: 'npm test && rm -rf .' }), { mode: 'yolo', rules: rules({ allow: ['Bash'] }) }));
    expect(decision).toMatchObject({ kind: 'deny', message: expect.stringContaining('would recursively delete . (the workspace)') });
  });
});

describe('rules', () => {
  it('evaluate deny, then ask, then allow, whatever the order written', async () => {
    const all = rules({ allow: ['Write'], ask: ['Write(/ws/src/**)'], deny: ['Write(/ws/src/a.ts)'] });
    expect(await kind(write, { rules: all })).toBe('deny');
    expect(await kind(call('Write', { path: '/ws/src/b.ts' }), { rules: all })).toBe('ask');
    expect(await kind(call('Write', { path: '/ws/c.ts' }), { rules: all })).toBe('allow');
  });
  it('an ask rule asks even in yolo mode', async () => {
    expect(await kind(bash, { mode: 'yolo', rules: rules({ ask: ['Bash(npm *)'] }) })).toBe('ask');
  });
  it('name the rule and its file when denying', async () => {
    const decision = await decide(ctx(bash, { rules: rules({ deny: ['Bash'] }) }));
    expect(decision).toEqual({ kind: 'deny', message: expect.stringContaining('deny rule "Bash" in /ws/.deft/settings.json') });
  });
  it('allow a compound Bash command only when every part is allowed', async () => {
    const allow = rules({ allow: ['Bash(npm test)'] });
    expect(await kind(bash, { rules: allow })).toBe('allow');
    expect(await kind(call('Bash', { command: 'npm test; rm -rf x' }), { rules: allow })).toBe('ask');
  });
  it('"approve for session" of a call an ask rule asked about stops further asks for it; deny rules still win', async () => {
    const push = call('Bash', { command: 'git push origin main' });
    const asked = rules({ ask: ['Bash(git push *)'] });
    expect(await decide(ctx(push, { rules: asked }))).toMatchObject({ kind: 'ask', rememberable: true });
    expect(await kind(push, { rules: asked, sessionRules: ['Bash(git push origin main)'] })).toBe('allow');
    expect(await kind(call('Bash', { command: 'git push --force' }), { rules: asked, sessionRules: ['Bash(git push origin main)'] })).toBe('ask');
    expect(await kind(push, { rules: rules({ deny: ['Bash(git push *)'] }), sessionRules: ['Bash(git push origin main)'] })).toBe('deny');
  });
  it('session approvals allow the same call again, not others', async () => {
    expect(await kind(write, { sessionRules: ['Write(/ws/src/a.ts)'] })).toBe('allow');
    expect(await kind(call('Write', { path: '/ws/src/b.ts' }), { sessionRules: ['Write(/ws/src/a.ts)'] })).toBe('ask');
  });
  it('protected paths ask even when a rule or a session approval allows them, and cannot be remembered', async () => {
    const env = call('Write', { path: '/ws/.deft/settings.json' });
    const decision = await decide(ctx(env, { mode: 'yolo', rules: rules({ allow: ['Write'] }), sessionRules: ['Write(/ws/.deft/settings.json)'] }));
    expect(decision).toMatchObject({ kind: 'ask', rememberable: false, reason: expect.stringContaining('settings') });
  });
  it('a shell command run inside .git/ asks in yolo, and its relative words resolve against its cwd', async () => {
    const hook = call('Bash', { command: 'echo evil > pre-commit', cwd: '.git/hooks' });
    expect(await decide(ctx(hook, { mode: 'yolo', rules: rules({ allow: ['Bash'] }) }))).toMatchObject({ kind: 'ask', rememberable: false });
    const settings = call('Bash', { command: 'cp evil settings.json', cwd: '/ws/.deft' });
    expect(await kind(settings, { mode: 'yolo' })).toBe('ask');
    expect(await kind(call('Bash', { command: 'echo hi > notes.txt', cwd: 'src' }), { mode: 'yolo' })).toBe('allow');
    expect(await kind(call('Bash', { command: "bash -c 'echo evil > .git/hooks/pre-commit'" }), { mode: 'yolo' })).toBe('ask');
  });
  it('lets the user-facing tools run in every mode, but deny rules still apply', async () => {
    expect(await kind(call('TodoList', {}))).toBe('allow');
    expect(await kind(call('AskUserQuestion', {}))).toBe('allow');
    expect(await kind(call('TodoList', {}), { rules: rules({ deny: ['TodoList'] }) })).toBe('deny');
    expect(await kind(call('CreateGoal', {}))).toBe('ask');
    expect(await kind(call('CreateGoal', {}), { mode: 'yolo' })).toBe('allow');
  });
});

describe('plan mode', () => {
  const plan: PlanState = { active: true, planId: 'p', path: '/home/dev/.deft/plans/p.md' };
  it('runs read-only tools and writes to the plan file only', async () => {
    expect(await kind(read, { plan })).toBe('allow');
    expect(await kind(call('Write', { path: plan.path }), { plan })).toBe('allow');
    expect(await kind(call('Edit', { path: plan.path }), { plan })).toBe('allow');
    const denied = await decide(ctx(write, { plan, mode: 'yolo' }));
    expect(denied).toMatchObject({ kind: 'deny', message: expect.stringContaining('Plan mode is active') });
    expect(await kind(call('FetchURL', { url: 'x' }), { plan, mode: 'yolo' })).toBe('deny');
  });
  it('asks for shell commands even in yolo mode, and even when a rule allows them (finding 10)', async () => {
    expect(await kind(bash, { plan, mode: 'yolo' })).toBe('ask');
    expect(await kind(bash, { plan, rules: rules({ allow: ['Bash(npm test)'] }) })).toBe('ask');
  });
  it('does not apply once plan mode is off', async () => {
    expect(await kind(write, { plan: { ...plan, active: false }, mode: 'accept-edits' })).toBe('allow');
  });
});
