import { describe, expect, it } from 'vitest';
import type { ResolvedCall } from '#contract/calls';
import { resolvedCall, shellCall } from '#test-support/resolved-call';
import { type PermissionRule, parseRule, ruleApplies } from './rules';

function call(name: string, args: unknown = {}, matchesRule?: (a: string) => boolean): ResolvedCall {
  return resolvedCall(name, args, matchesRule ? { matchesRule } : {});
}

function rule(pattern: string, decision: PermissionRule['decision'] = 'allow'): PermissionRule {
  const parsed = parseRule(pattern);
  if (!parsed.ok) throw new Error(parsed.message);
  return { ...parsed.rule, decision, source: 'project' };
}

describe('parseRule', () => {
  it('parses names, name globs and arguments', () => {
    expect(parseRule('Bash')).toEqual({ ok: true, rule: { pattern: 'Bash', tool: 'Bash' } });
    expect(parseRule('Bash()')).toEqual({ ok: true, rule: { pattern: 'Bash()', tool: 'Bash' } });
    expect(parseRule('Bash(npm test)')).toEqual({ ok: true, rule: { pattern: 'Bash(npm test)', tool: 'Bash', argument: 'npm test' } });
    expect(parseRule('Bash(echo \\(x\\))')).toMatchObject({ ok: true, rule: { argument: 'echo \\(x\\)' } });
    expect(parseRule('mcp__github__*')).toMatchObject({ ok: true, rule: { tool: 'mcp__github__*' } });
    expect(parseRule(' * ')).toMatchObject({ ok: true, rule: { tool: '*' } });
  });
  it('rejects malformed rules with a reason', () => {
    expect(parseRule('Bash(npm test')).toMatchObject({ ok: false, message: expect.stringContaining('not closed') });
    expect(parseRule('Bash)')).toMatchObject({ ok: false, message: expect.stringContaining('without a "("') });
    expect(parseRule('')).toMatchObject({ ok: false, message: 'the rule is empty' });
    expect(parseRule('(x)')).toMatchObject({ ok: false, message: expect.stringContaining('tool name is missing') });
    expect(parseRule('Read File')).toMatchObject({ ok: false, message: expect.stringContaining('not a tool name') });
    expect(parseRule(42)).toMatchObject({ ok: false, message: expect.stringContaining('must be a string') });
  });
});

describe('ruleApplies', () => {
  it('matches tool names as globs', async () => {
    expect(await ruleApplies(rule('*'), call('Anything'))).toBe(true);
    expect(await ruleApplies(rule('mcp__github__*'), call('mcp__github__create_issue'))).toBe(true);
    expect(await ruleApplies(rule('mcp__github__*'), call('mcp__gitlab__x'))).toBe(false);
    expect(await ruleApplies(rule('Read'), call('ReadMediaFile'))).toBe(false);
  });
  it("uses the tool's matcher for arguments, and never matches an argument rule without one", async () => {
    const read = call('Read', { path: 'src/a.ts' }, (a) => a === '/ws/src/a.ts');
    expect(await ruleApplies(rule('Read(/ws/src/a.ts)'), read)).toBe(true);
    expect(await ruleApplies(rule('Read(/ws/other)'), read)).toBe(false);
    expect(await ruleApplies(rule('TodoList(x)'), call('TodoList'))).toBe(false);
    expect(await ruleApplies(rule('TodoList'), call('TodoList'))).toBe(true);
  });
  it('matches a tool without a matcher by exactly the approval rule it offers (approve for session of CronCreate)', async () => {
    const offered = 'CronCreate(\\{"cron":"\\@hourly","prompt":"ping","recurring":false\\})';
    const cron = resolvedCall('CronCreate', {}, { approvalRule: offered });
    expect(await ruleApplies(rule(offered), cron)).toBe(true);
    expect(await ruleApplies(rule(offered), resolvedCall('CronCreate', {}, { approvalRule: offered.replace('ping', 'pong') }))).toBe(false);
  });
  it('matches Bash by command, compound-aware per decision', async () => {
    const bash = shellCall('npm test; rm -rf x', { cwd: '/ws' });
    expect(await ruleApplies(rule('Bash(npm test)', 'allow'), bash)).toBe(false);
    expect(await ruleApplies(rule('Bash(rm *)', 'deny'), bash)).toBe(true);
    expect(await ruleApplies(rule('Bash(rm *)', 'ask'), bash)).toBe(true);
    expect(await ruleApplies(rule('Bash(npm *)', 'allow'), shellCall('npm test && npm run lint', { cwd: '/ws' }))).toBe(true);
  });
});
