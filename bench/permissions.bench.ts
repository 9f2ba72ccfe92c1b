import { performance } from 'node:perf_hooks';
import picomatch from 'picomatch';
import type { ResolvedCall } from '../main/agent/contract/calls';
import { decide } from '../main/agent/capabilities/approvals/engine';
import { type PermissionRule, parseRule } from '../main/agent/capabilities/approvals/rules';
import { shellParser } from '../main/agent/infra/policies/shell-parse';
import { shellCall } from '../test-support/resolved-call';
import { type BenchResult, median } from './types';

const places = { workspace: '/work/project', home: '/home/dev/.deft', userHome: '/home/dev' };

function rules(): PermissionRule[] {
  const allow = [
    'Read',
    'Grep',
    'Glob',
    ...['npm test', 'npm run *', 'git status', 'git diff *', 'git log *', 'ls *', 'cat *', 'node *', 'npx tsc *', 'pytest *'].map((c) => `Bash(${c})`),
  ];
  const ask = ['Bash(git push *)', 'Write(/work/project/.github/**)'];
  const deny = ['Bash(rm -rf *)', 'Bash(curl *)', 'Bash(wget *)', 'mcp__*__delete_*'];
  return [...allow.map((p) => ['allow', p] as const), ...ask.map((p) => ['ask', p] as const), ...deny.map((p) => ['deny', p] as const)].map(
    ([decision, pattern]) => {
      const parsed = parseRule(pattern);
      if (!parsed.ok) throw new Error(parsed.message);
      return { ...parsed.rule, decision, source: 'project' as const };
    },
  );
}

function bashCall(command: string): ResolvedCall {
  return shellCall(command, { cwd: places.workspace }, { display: { kind: 'command', command } });
}

/** Deciding on a compound Bash call (parse + rules + protected paths + rm refusal) versus globbing the whole command against the same rules. */
export default async function permissions(): Promise<BenchResult[]> {
  await shellParser();
  const all = rules();
  const command = 'npm test && git diff --stat | cat; ls -la src && node scripts/build.mjs > out.log 2>&1';
  const call = bashCall(command);
  const iterations = 2_000;
  const decided = await median(5, async () => {
    const t0 = performance.now();
    for (let i = 0; i < iterations; i++) await decide({ call, mode: 'ask', rules: all, sessionRules: [], plan: null, places });
    return ((performance.now() - t0) / iterations) * 1000;
  });
  const globs = all.filter((r) => r.argument !== undefined).map((r) => picomatch(r.argument!, { bash: true, dot: true }));
  const naive = await median(5, async () => {
    const t0 = performance.now();
    let hits = 0;
    for (let i = 0; i < iterations; i++) for (const glob of globs) if (glob(command)) hits++;
    if (hits < 0) throw new Error('unreachable');
    return ((performance.now() - t0) / iterations) * 1000;
  });
  const verdict = await decide({ call, mode: 'ask', rules: all, sessionRules: [], plan: null, places });
  return [
    {
      name: `permission decision, 6-part compound Bash command, ${all.length} rules`,
      value: decided,
      unit: 'µs',
      baseline: { name: 'whole-string glob of the same rules (not compound-aware)', value: naive },
      note: `decision: ${verdict.kind}`,
    },
  ];
}
