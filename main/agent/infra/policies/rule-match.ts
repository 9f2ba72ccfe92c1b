import { homedir } from 'node:os';
import type picomatch from 'picomatch';
import { picomatchPackage } from '#infra/platform/on-demand';

/**
 * Matching a permission rule's argument (`Tool(<argument>)`) against what a call touches.
 * `!` at the start negates. Glob subjects (commands, URLs, search patterns) let `*` cross `/`;
 * path subjects are matched as paths, case-insensitively, against the canonical absolute path
 * (and its workspace-relative form, with or without `./`).
 */
const compiled = new Map<string, picomatch.Matcher>();

/** A compiled glob, cached: rules are checked on every tool call, often against several parts of a command. */
function matcher(glob: string, options: picomatch.PicomatchOptions): picomatch.Matcher {
  const key = `${options.nocase ? 'i' : ''}${options.bash ? 'b' : ''}:${glob}`;
  let match = compiled.get(key);
  if (!match) {
    if (compiled.size >= 1_000) compiled.clear();
    match = picomatchPackage()(glob, options);
    compiled.set(key, match);
  }
  return match;
}

function negation(pattern: string): { negate: boolean; body: string } {
  return pattern.startsWith('!') ? { negate: true, body: pattern.slice(1) } : { negate: false, body: pattern };
}

/** A rule argument against a plain string subject (Bash command, URL, Grep/Glob pattern, skill name…). */
export function matchGlobSubject(pattern: string, subject: string): boolean {
  const { negate, body } = negation(pattern);
  const subjects = subject.startsWith('./') ? [subject, subject.slice(2)] : [subject];
  const match = matcher(body, { bash: true, dot: true });
  const matched = subjects.some((s) => match(s));
  return negate ? !matched : matched;
}

/** A rule argument against a file: `forms` are the canonical absolute path and, inside the workspace, its relative path. */
export function matchPathSubject(pattern: string, forms: { absolute: string; relative?: string }): boolean {
  const { negate, body } = negation(pattern);
  const candidates = [forms.absolute];
  if (forms.relative !== undefined) candidates.push(forms.relative, `./${forms.relative}`);
  // `~/` is the user's home folder, as in other agents' rules (`Read(~/.zshrc)`).
  const glob = body.startsWith('./') ? body.slice(2) : /^~(?=\/|$)/.test(body) ? homedir() + body.slice(1) : body;
  const options = { dot: true, nocase: true };
  const byGlob = matcher(glob, options);
  const byBody = matcher(body, options);
  const matched = candidates.some((c) => byGlob(c) || byBody(c));
  return negate ? !matched : matched;
}

/** Escape glob specials so a stored rule (`approvalRule`) matches exactly this subject. */
export function escapeRuleArgument(text: string): string {
  return text.replace(/[\\*?[\]{}()!+@]/g, (c) => `\\${c}`);
}

/** `Tool(<escaped subject>)`: the rule stored when the user approves a call for the session. */
export function exactRule(tool: string, subject: string): string {
  return `${tool}(${escapeRuleArgument(subject)})`;
}
