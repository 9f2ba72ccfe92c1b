import type picomatch from 'picomatch';
import { picomatchPackage } from '#infra/platform/on-demand';
import type { RuleSource } from '#protocol';
import type { ResolvedCall } from '#contract/calls';
import { bashRuleHits, matchBashRule } from '#infra/policies/bash-rule';
import type { Places } from '#infra/policies/protected-paths';
import type { ParsedShell } from '#infra/policies/shell-parse';

export type RuleDecision = 'allow' | 'ask' | 'deny';

/** A parsed rule: `Tool` or `Tool(argument)`. */
export interface ParsedRule {
  pattern: string;
  tool: string;
  /** Absent for a name-only rule (`Tool` or `Tool()`). */
  argument?: string;
}

export interface PermissionRule extends ParsedRule {
  decision: RuleDecision;
  /** `run`: given by the host for this run only (deft run --allowed-tools / --disallowed-tools). */
  source: RuleSource | 'session' | 'run';
  /** The file it came from (absent for session approvals). */
  file?: string;
}

const TOOL_NAME = /^[A-Za-z0-9_*?.-]+$/;

/** Parse `Tool` / `Tool(argument-glob)`; the error says what is wrong and how to write it. */
export function parseRule(text: unknown): { ok: true; rule: ParsedRule } | { ok: false; message: string } {
  if (typeof text !== 'string') return { ok: false, message: `a rule must be a string such as "Bash(npm test)", not ${JSON.stringify(text)}` };
  const pattern = text.trim();
  if (!pattern) return { ok: false, message: 'the rule is empty' };
  if (pattern.length > 4_096) return { ok: false, message: 'the rule is longer than 4,096 characters' };
  const open = pattern.indexOf('(');
  let tool = pattern;
  let argument: string | undefined;
  if (open >= 0) {
    if (!pattern.endsWith(')')) return { ok: false, message: 'the argument is not closed: write Tool(argument) with a closing ")"' };
    tool = pattern.slice(0, open).trim();
    argument = pattern.slice(open + 1, -1);
    if (argument.trim() === '') argument = undefined;
  } else if (pattern.includes(')')) {
    return { ok: false, message: 'there is a ")" without a "(": write Tool or Tool(argument)' };
  }
  if (!tool) return { ok: false, message: 'the tool name is missing: write Tool or Tool(argument)' };
  if (!TOOL_NAME.test(tool)) return { ok: false, message: `"${tool}" is not a tool name or name pattern (letters, digits, _, -, ., * and ? only)` };
  try {
    picomatchPackage().makeRe(tool);
    if (argument !== undefined) picomatchPackage().makeRe(argument.replace(/^!/, ''), { bash: true });
  } catch (error) {
    return { ok: false, message: `the pattern does not compile: ${(error as Error).message}` };
  }
  return { ok: true, rule: argument === undefined ? { pattern, tool } : { pattern, tool, argument } };
}

const toolMatchers = new Map<string, picomatch.Matcher>();
function toolMatcher(glob: string): picomatch.Matcher {
  let match = toolMatchers.get(glob);
  if (!match) {
    if (toolMatchers.size >= 1_000) toolMatchers.clear();
    match = picomatchPackage()(glob, { dot: true });
    toolMatchers.set(glob, match);
  }
  return match;
}

/** The arguments of the rules that apply to a shell tool (`Bash(...)`, `B*(...)` for Bash), for covering a compound command part by part. */
export function shellArguments(rules: readonly ParsedRule[], tool: string): string[] {
  return rules.flatMap((rule) => (rule.argument !== undefined && toolMatcher(rule.tool)(tool) ? [rule.argument] : []));
}

/**
 * Whether a rule applies to a call. The tool name is a glob (`*`, `mcp__github__*`). An argument is
 * matched by the tool's own `matchesRule` (paths, URLs, patterns); for a shell command by the compound-aware
 * matcher, so an allow rule must cover every part of a compound command while a deny or ask rule
 * fires on any part. Tools without a matcher are matched by name, or by exactly the rule the call offers.
 */
export async function ruleApplies(
  rule: PermissionRule,
  call: ResolvedCall,
  parsedShell?: () => Promise<ParsedShell>,
  places?: Places & { cwd: string },
): Promise<boolean> {
  if (!toolMatcher(rule.tool)(call.name)) return false;
  if (rule.argument === undefined) return true;
  const command = call.execution.shell?.command;
  if (command !== undefined) {
    const shell = parsedShell ? await parsedShell() : undefined;
    return rule.decision === 'allow' ? matchBashRule(rule.argument, command, shell, places) : bashRuleHits(rule.argument, command, shell);
  }
  if (call.execution.matchesRule) {
    try {
      return call.execution.matchesRule(rule.argument);
    } catch {
      return false;
    }
  }
  // No matcher (CronCreate, CronDelete…): the rule the call itself offers ("approve for session", "always
  // allow") still covers exactly that call.
  return rule.pattern === call.execution.approvalRule;
}
