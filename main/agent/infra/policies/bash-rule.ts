import { matchGlobSubject } from './rule-match';
import { type ParsedShell, parseShell } from './shell-parse';

/**
 * A rule argument against one command text. `prefix:*` is the prefix form other agents' rules use
 * (`Bash(npm run test:*)`, `Bash(rm:*)`): the command is the prefix, alone or followed by arguments.
 */
function matchCommand(argument: string, text: string): boolean {
  const prefix = /^(!?)(.+):\*$/.exec(argument);
  if (!prefix) return matchGlobSubject(argument, text);
  const [, negate, body] = prefix;
  const matched = matchGlobSubject(body!, text) || matchGlobSubject(`${body} *`, text);
  return negate ? !matched : matched;
}

/** The literal text of a rule argument, or null when it contains unescaped glob syntax. */
function literalArgument(argument: string): string | null {
  if (argument.startsWith('!')) return null;
  let out = '';
  for (let i = 0; i < argument.length; i++) {
    const c = argument[i]!;
    if (c === '\\' && i + 1 < argument.length) {
      out += argument[++i];
    } else if ('*?[]{}()!+@'.includes(c)) {
      return null;
    } else {
      out += c;
    }
  }
  return out;
}

/**
 * Whether an ALLOW rule argument (`Bash(<argument>)`) covers a whole command line. A compound command
 * (`&&`, `||`, `;`, `|`, `&`, newlines, subshells, `$(…)`, function bodies) is covered only when every
 * simple command in it matches: `Bash(npm test)` does not cover `npm test && rm -rf ~`. A rule without
 * glob syntax (such as the one "approve for session" stores) also covers exactly its own text.
 */
export async function matchBashRule(argument: string, command: string, parsed?: ParsedShell): Promise<boolean> {
  const literal = literalArgument(argument);
  if (literal !== null && literal.trim() === command.trim()) return true;
  const shell = parsed ?? (await parseShell(command));
  if (!shell.complete || shell.commands.length === 0) return false;
  return shell.commands.every((part) => matchCommand(argument, part.text));
}

/**
 * Whether a DENY or ASK rule argument hits a command line: the whole text or any simple command in it
 * (`Bash(rm *)` catches `ls && rm -rf x`). Unparseable input is checked as a whole and line by line.
 */
export async function bashRuleHits(argument: string, command: string, parsed?: ParsedShell): Promise<boolean> {
  if (matchCommand(argument, command.trim())) return true;
  const shell = parsed ?? (await parseShell(command));
  if (shell.commands.some((part) => matchCommand(argument, part.text))) return true;
  if (!shell.complete) return command.split(/[\n;&|]+/).some((piece) => piece.trim() !== '' && matchCommand(argument, piece.trim()));
  return false;
}

/**
 * Whether ALLOW rule arguments together cover a command line: every simple command in it is matched
 * by at least one of them (`Bash(git diff:*)` and `Bash(npm test:*)` cover `git diff && npm test`).
 * Unparseable input is never covered this way.
 */
export async function coversEveryPart(argumentsList: readonly string[], command: string, parsed?: ParsedShell): Promise<boolean> {
  if (!argumentsList.length) return false;
  const shell = parsed ?? (await parseShell(command));
  if (!shell.complete || shell.commands.length === 0) return false;
  return shell.commands.every((part) =>
    argumentsList.some((argument) => {
      const literal = literalArgument(argument);
      return (literal !== null && literal.trim() === part.text.trim()) || matchCommand(argument, part.text);
    }),
  );
}
