import { basename, sep } from 'node:path';
import { type Places, protectedPathReason } from './protected-paths';
import { matchGlobSubject } from './rule-match';
import { type ParsedShell, type ShellCommand, parseShell } from './shell-parse';
import { wordPaths } from './static-paths';

/** Flags that make a command write a file (`git diff --output=F`, `curl -o F`, `sort -o F`, `dd of=F`). */
const OUTPUT_FLAGS = /^--(output|out|outfile|output-file|out-file|log-file|output-document|dump-path)(=|$)/;
const SHORT_OUTPUT: Record<string, string[]> = { curl: ['-o'], wget: ['-O', '-o'], sort: ['-o'], git: ['-o'], tee: [], dd: [] };

/** Files a command writes besides its redirections: values of output flags, `tee`'s files, `dd of=`. */
export function writeFlagTargets(command: ShellCommand): string[] {
  const name = basename(command.name);
  const args = command.args;
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const long = OUTPUT_FLAGS.exec(arg);
    if (long) {
      if (long[2] === '=') out.push(arg.slice(arg.indexOf('=') + 1));
      else if (args[i + 1] !== undefined) out.push(args[++i]!);
      continue;
    }
    const shorts = SHORT_OUTPUT[name] ?? [];
    const short = shorts.find((flag) => arg === flag || (arg.startsWith(flag) && arg.length > flag.length && !arg.startsWith('--')));
    if (short) {
      if (arg === short && args[i + 1] !== undefined) out.push(args[++i]!);
      else if (arg !== short) out.push(arg.slice(short.length));
      continue;
    }
    if (name === 'dd' && arg.startsWith('of=')) out.push(arg.slice(3));
    if (name === 'tee' && !arg.startsWith('-')) out.push(arg);
  }
  return out;
}

const DEVICES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);

/** Whether every file a part writes (redirections, output flags) is known, inside the workspace and not protected. */
function writesStayInside(part: ShellCommand, places: (Places & { cwd: string }) | undefined): boolean {
  const targets = [...part.writes, ...writeFlagTargets(part)];
  if (!targets.length) return true;
  if (!places) return false;
  const root = places.workspace.endsWith(sep) ? places.workspace : places.workspace + sep;
  return targets.every((word) => {
    if (DEVICES.has(word)) return true;
    const resolved = wordPaths(word, { cwd: places.cwd, home: places.userHome });
    return resolved.known && resolved.paths.every((path) => (path === places.workspace || path.startsWith(root)) && !protectedPathReason(path, places));
  });
}

/**
 * A rule argument against one command text. `prefix:*` is the prefix form other agents' rules use
 * (`Bash(npm run test:*)`, `Bash(rm:*)`): the command is the prefix, alone or followed by arguments.
 */
function matchCommand(argument: string, text: string): boolean {
  const prefix = /^(!?)(.+):\*$/.exec(argument);
  // `ls *` is ls with any arguments, none included.
  if (!prefix && argument.endsWith(' *')) {
    const negate = argument.startsWith('!');
    const body = negate ? argument.slice(1) : argument;
    const matched = matchGlobSubject(body, text) || matchGlobSubject(body.slice(0, -2), text);
    return negate ? !matched : matched;
  }
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
 * simple command in it matches: `Bash(npm test)` does not cover `npm test && rm -rf ~`. A rule covers
 * the command, never its redirections or output flags: a part is covered only when the files it writes
 * stay inside the workspace and are not protected (`Bash(ls *)` does not cover `ls > ~/.bashrc`, nor
 * `Bash(git diff *)` `git diff --output=/etc/x`). A rule without glob syntax (such as the one "approve
 * for session" stores) also covers exactly its own text, redirections included.
 */
export async function matchBashRule(argument: string, command: string, parsed?: ParsedShell, places?: Places & { cwd: string }): Promise<boolean> {
  const literal = literalArgument(argument);
  if (literal !== null && literal.trim() === command.trim()) return true;
  const shell = parsed ?? (await parseShell(command));
  if (!shell.complete || shell.commands.length === 0) return false;
  return shell.commands.every((part) => matchCommand(argument, part.bare) && writesStayInside(part, places));
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
export async function coversEveryPart(
  argumentsList: readonly string[],
  command: string,
  parsed?: ParsedShell,
  places?: Places & { cwd: string },
): Promise<boolean> {
  if (!argumentsList.length) return false;
  const shell = parsed ?? (await parseShell(command));
  if (!shell.complete || shell.commands.length === 0) return false;
  return shell.commands.every((part) =>
    argumentsList.some((argument) => {
      const literal = literalArgument(argument);
      // Exactly the text the user approved, redirections included; otherwise as matchBashRule: the rule
      // covers the command, and the files it writes must stay inside the workspace and unprotected.
      return (literal !== null && literal.trim() === part.text.trim()) || (matchCommand(argument, part.bare) && writesStayInside(part, places));
    }),
  );
}
