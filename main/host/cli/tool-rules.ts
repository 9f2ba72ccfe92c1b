import { picomatchPackage } from '#infra/platform/on-demand';
import type { CapabilityFactory } from '#contract/capability';
import type { Tool, ToolEnv } from '#contract/tool';
import { parseRule } from '../../agent/capabilities/approvals/rules';

/**
 * The rules of `--allowed-tools` / `--disallowed-tools`: each value may hold several, separated by commas or
 * spaces outside parentheses (`"Read,Bash(git diff:*) Edit"`), as Claude Code takes them. Throws with the
 * first rule that does not parse, and why.
 */
export function toolRules(values: readonly string[], flag: string): string[] {
  const rules: string[] = [];
  for (const value of values) {
    let depth = 0;
    let current = '';
    const flush = () => {
      if (current.trim()) rules.push(current.trim());
      current = '';
    };
    for (const char of value) {
      if (char === '(') depth++;
      else if (char === ')') depth = Math.max(0, depth - 1);
      if (depth === 0 && (char === ',' || /\s/.test(char))) flush();
      else current += char;
    }
    flush();
  }
  for (const rule of rules) {
    const parsed = parseRule(rule);
    if (!parsed.ok) throw new Error(`${flag} "${rule}" is not a rule: ${parsed.message}`);
  }
  return rules;
}

/**
 * A tool a bare disallowed name (or name pattern: `Bash`, `mcp__github__*`) refuses whole is not offered to the
 * model at all, as in Claude Code; a rule with an argument (`Bash(rm:*)`) leaves the tool offered and refuses
 * the calls it matches. Every capability's tools and the extra tools (tests) are filtered.
 */
export function hideTools(
  capabilities: readonly CapabilityFactory[],
  extraTools: ((env: ToolEnv) => Tool[]) | undefined,
  hidden: (name: string) => boolean,
): { capabilities: CapabilityFactory[]; tools?: (env: ToolEnv) => Tool[] } {
  const wrapped = capabilities.map((factory): CapabilityFactory => {
    return (core) => {
      const capability = factory(core);
      if (!capability.tools) return capability;
      const tools = capability.tools.bind(capability);
      return Object.assign(capability, { tools: (...args: Parameters<typeof tools>) => tools(...args).filter((t) => !hidden(t.name)) });
    };
  });
  return { capabilities: wrapped, ...(extraTools ? { tools: (env: ToolEnv) => extraTools(env).filter((t) => !hidden(t.name)) } : {}) };
}

/** Whether a tool name is refused whole by one of these rules (a rule without an argument). */
export function hiddenBy(rules: readonly string[]): (name: string) => boolean {
  const whole = rules.flatMap((text) => {
    const parsed = parseRule(text);
    return parsed.ok && parsed.rule.argument === undefined ? [picomatchPackage()(parsed.rule.tool, { dot: true })] : [];
  });
  return (name) => whole.some((match) => match(name));
}
