import { escapeRuleArgument, matchGlobSubject } from '#infra/policies/rule-match';
import type { Target } from './target';

/** `scheme://host[:port]` at the start of a rule argument, with no glob in it. */
const PLAIN_ORIGIN = /^(https?:\/\/[^/*?[\]{}!]+)(.*)$/i;

/** A rule's URL written the way targets are: the origin parsed (lower case, no default port, no trailing dot). */
function normalisePattern(pattern: string): string {
  const match = PLAIN_ORIGIN.exec(pattern);
  if (!match) return pattern;
  try {
    const url = new URL(match[1]!);
    const host = url.hostname.replace(/\.+$/, '');
    return `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}${match[2]}`;
  } catch {
    return pattern;
  }
}

/**
 * Whether a rule argument (`FetchURL(<argument>)`) covers a target. Both sides are compared in normal
 * form and case-insensitively, so `HTTPS://Docs.Example.com:443/%61pi` cannot slip past a rule on
 * `https://docs.example.com/api*`; `*` crosses `/`; `!` negates.
 */
export function urlRuleMatches(argument: string, target: Target): boolean {
  const negate = argument.startsWith('!');
  const pattern = normalisePattern(negate ? argument.slice(1) : argument).toLowerCase();
  return matchGlobSubject(`${negate ? '!' : ''}${pattern}`, target.normalised.toLowerCase());
}

/** The rule an approval of this target stores: every URL on its host (`FetchURL(https://host/*)`). */
export function hostRule(target: Target): string {
  return `FetchURL(${escapeRuleArgument(target.origin)}/*)`;
}
