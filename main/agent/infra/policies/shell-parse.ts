import { createRequire } from 'node:module';
import type { Node, Parser } from 'web-tree-sitter';

/** One simple command of a shell script, as parsed. */
export interface ShellCommand {
  /** Its source text, with its redirections (`echo hi > out.txt`). */
  text: string;
  /** The command name with quotes removed (`rm`), or '' for an assignment or a test. */
  name: string;
  /** Arguments with quotes removed; expansions are kept as written (`$HOME`). */
  args: string[];
  /** Redirection targets with quotes removed. */
  redirects: string[];
  /** Targets of output redirections (`>`, `>>`, `&>`, `>|`, `2>`…), quotes removed; not `>&2`-style duplications. */
  writes: string[];
  /** The command without its redirections (`echo hi` for `echo hi > out.txt`): what rules match. */
  bare: string;
  /**
   * Argument and redirection values the shell expands when it runs ($VAR, $(…), `…`, $((…)), <(…)).
   * A `$` in any other value is literal (`sed 's/a$/b/'`). Absent: treat every `$` as an expansion.
   */
  expanding?: Set<string>;
  /**
   * Argument values whose only expansions are plain parameters (`$i`, `${name}`, `$1`): no `$(…)`, `<(…)`,
   * `$((…))` or `${x:=…}`-style operators, so expanding them runs and assigns nothing.
   */
  plainWords?: Set<string>;
  /**
   * Where its standard output goes: `shown` (the call's output, or another standard stream), `file` (a
   * file or an opened descriptor), `fed` (into another command: a pipe, `$(…)`, `<(…)`).
   */
  output?: 'shown' | 'file' | 'fed';
  /** The script it is part of defines a shell function (which may shadow any command name). */
  definesFunctions?: boolean;
  /** Where its standard input comes from, when not inherited: another command (`fed`: a pipe) or text on the line (`text`). */
  input?: 'fed' | 'text';
  /** The text of its here-document or here-string, as written (a here-document's expansions are not applied). */
  stdinText?: string;
}

/** A parsed command line: every simple command in it, wherever it is nested. */
export interface ParsedShell {
  commands: ShellCommand[];
  /** False when the parser met a syntax error: the split cannot be trusted. */
  complete: boolean;
  /**
   * The word lists of its `for` loops, as commands named `for` (their words are checked as arguments are). Not
   * parts a rule must cover: a loop runs only the commands in it.
   */
  lists?: ShellCommand[];
}

let parser: Promise<Parser> | null = null;

/** The Bash grammar (tree-sitter, WebAssembly), loaded once per process, when the first command is parsed. */
export function shellParser(): Promise<Parser> {
  parser ??= (async () => {
    const { Language, Parser } = await import('web-tree-sitter');
    await Parser.init();
    const require = createRequire(import.meta.url);
    const language = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
    const instance = new Parser();
    instance.setLanguage(language);
    return instance;
  })().catch((error: unknown) => {
    parser = null;
    throw error;
  });
  return parser;
}

// Statements that run something: each is one "part" a rule must cover.
const LEAVES = new Set(['command', 'declaration_command', 'unset_command', 'test_command', 'variable_assignment', 'variable_assignments']);

/** Split a command line into its simple commands with a real Bash parser (&&, ||, ;, |, &, newlines, subshells, $(…), functions, loops). */
export async function parseShell(source: string): Promise<ParsedShell> {
  return plainCommandLine(source) ?? parseWithGrammar(source);
}

// One word with no quoting, expansion, globbing, redirection, operator or comment in it: letters, digits and `_./:,@%+=-`.
const PLAIN_WORD = '[A-Za-z0-9_./:,@%+=-]+';
// The command's name: no `=` (an assignment), not starting with `-` or `%` (a job).
const PLAIN_NAME = '[A-Za-z0-9_./][A-Za-z0-9_./:,@%+-]*';
const PLAIN_LINE = new RegExp(`^${PLAIN_NAME}( ${PLAIN_WORD})*$`);
/** Names the grammar reads as something other than a simple command: reserved words and declaration builtins. */
const NOT_SIMPLE = new Set(
  'if then else elif fi case esac for select while until do done in function time coproc export declare local readonly typeset unset'.split(' '),
);

/**
 * A command line of plain words separated by single spaces (`ls -la src`, `git status`, `npm test`), split without
 * the grammar: what the parser would return for it, with no WebAssembly to compile (a third of a shell step's CPU in
 * a one-shot run, bench/peers.bench.ts). Anything else (quotes, `$`, operators, globs, reserved words…) is null.
 */
export function plainCommandLine(source: string): ParsedShell | null {
  if (!PLAIN_LINE.test(source)) return null;
  const [name = '', ...args] = source.split(' ');
  if (NOT_SIMPLE.has(name)) return null;
  return {
    commands: [{ text: source, name, args, redirects: [], writes: [], bare: source, expanding: new Set(), plainWords: new Set(args), output: 'shown' }],
    complete: true,
  };
}

/** parseShell with the Bash grammar, whatever the line (exported for the test that holds plainCommandLine to it). */
export async function parseWithGrammar(source: string): Promise<ParsedShell> {
  const tree = (await shellParser()).parse(source);
  if (!tree) return { commands: [], complete: false };
  try {
    const commands: ShellCommand[] = [];
    collect(tree.rootNode, commands);
    if (tree.rootNode.descendantsOfType('function_definition').length) for (const command of commands) command.definesFunctions = true;
    const lists = tree.rootNode.descendantsOfType('for_statement').flatMap((loop) => (loop ? [loopList(loop)] : []));
    return { commands, complete: !tree.rootNode.hasError, ...(lists.length ? { lists } : {}) };
  } finally {
    tree.delete();
  }
}

/**
 * `inherited`: redirections of an enclosing statement. tree-sitter-bash hangs `a && b > f` and `a | b > f`
 * on the whole list or pipeline, so each simple command in it is given them (bash would give them to the
 * last one; giving them to every part can only ask more).
 */
function collect(node: Node, out: ShellCommand[], inherited: readonly Node[] = []): void {
  if (node.type === 'redirected_statement') {
    const body = node.childForFieldName('body');
    if (body && LEAVES.has(body.type)) {
      out.push(describe(body, node, inherited));
      for (const child of node.namedChildren) if (child) walkInside(child, out);
      return;
    }
    const own = node.namedChildren.filter((c): c is Node => c !== null && c.type === 'file_redirect');
    for (const child of node.namedChildren) if (child) collect(child, out, body && child.id === body.id ? [...inherited, ...own] : inherited);
    return;
  } else if (LEAVES.has(node.type) && !(node.type === 'variable_assignment' && node.parent?.type === 'command')) {
    out.push(describe(node, node, inherited));
    walkInside(node, out);
    return;
  }
  for (const child of node.namedChildren) if (child) collect(child, out, inherited);
}

/** Commands nested inside a command's words: $(…), `…`, <(…). */
function walkInside(node: Node, out: ShellCommand[]): void {
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === 'command_substitution' || child.type === 'process_substitution') collect(child, out);
    else walkInside(child, out);
  }
}

function describe(command: Node, outer: Node, inherited: readonly Node[]): ShellCommand {
  const name = command.type === 'command' ? command.childForFieldName('name') : null;
  const argNodes = command.type === 'command' ? command.childrenForFieldName('argument').filter((n): n is Node => n !== null) : [];
  const args = argNodes.map(wordText);
  const expanding = new Set(argNodes.filter(expands).map(wordText));
  // By value, as `expanding`: a value written once plainly and once with `$(…)` is not plain.
  const notPlain = new Set(argNodes.filter((n) => !plain(n)).map(wordText));
  const plainWords = new Set(argNodes.map(wordText).filter((word) => !notPlain.has(word)));
  const redirects: string[] = [];
  const writes: string[] = [];
  let output: ShellCommand['output'] = feedsAnother(outer) ? 'fed' : 'shown';
  for (const r of [...outer.descendantsOfType(['file_redirect']), ...inherited]) {
    const destination = r?.childForFieldName('destination');
    if (!r || !destination) continue;
    const target = wordText(destination);
    redirects.push(target);
    if (expands(destination)) expanding.add(target);
    const operator = r.children.find((c) => c && !c.isNamed)?.text ?? '';
    // `2>&1`, `>&-`: duplicating or closing a descriptor writes no file.
    if (operator.includes('>') && !(operator.endsWith('&') && /^(\d+|-)$/.test(target))) writes.push(target);
    // Output into a file, or into a descriptor other than the standard ones (`exec 3>f; echo x >&3`).
    if (operator.includes('>') && output === 'shown' && !STANDARD_OUTPUTS.has(target) && !(operator.endsWith('&') && /^[12-]$/.test(target))) output = 'file';
  }
  const text = [outer.text.trim(), ...inherited.map((r) => r.text.trim())].join(' ');
  const stdinText = inputText(command, outer);
  const input = stdinText !== undefined ? 'text' : fedFrom(outer) ? 'fed' : undefined;
  return {
    text,
    name: name ? wordText(name) : '',
    args,
    redirects,
    writes,
    bare: command.text.trim(),
    expanding,
    plainWords,
    output,
    ...(input ? { input } : {}),
    ...(stdinText !== undefined ? { stdinText } : {}),
  };
}

/** A loop's word list as a command named `for`, so its words are checked as arguments (`for f in .git/config`). */
function loopList(loop: Node): ShellCommand {
  const values = loop.childrenForFieldName('value').filter((n): n is Node => n !== null);
  const args = values.map(wordText);
  const notPlain = new Set(values.filter((n) => !plain(n)).map(wordText));
  const bare = `for ${loop.childForFieldName('variable')?.text ?? ''} in ${values.map((v) => v.text).join(' ')}`;
  return {
    text: bare,
    name: 'for',
    args,
    redirects: [],
    writes: [],
    bare,
    expanding: new Set(values.filter(expands).map(wordText)),
    plainWords: new Set(args.filter((word) => !notPlain.has(word))),
    output: 'shown',
  };
}

/** The text a here-string (`<<< '…'`) or here-document (`<<EOF`) gives a command on its standard input. */
function inputText(command: Node, outer: Node): string | undefined {
  const redirects = [...command.namedChildren, ...(outer.id === command.id ? [] : outer.namedChildren)];
  const given = redirects.find((c): c is Node => c !== null && (c.type === 'herestring_redirect' || c.type === 'heredoc_redirect'));
  if (!given) return undefined;
  if (given.type === 'herestring_redirect') return given.namedChildren[0] ? wordText(given.namedChildren[0]) : '';
  return given.namedChildren.find((c) => c?.type === 'heredoc_body')?.text ?? '';
}

/** Whether a statement reads another command's output: it, or a statement around it, is not the first of a pipeline. */
function fedFrom(node: Node): boolean {
  for (let at: Node | null = node; at; at = at.parent) {
    if (at.type === 'command_substitution' || at.type === 'process_substitution') return false;
    const parent = at.parent;
    if (parent?.type === 'pipeline' && parent.firstNamedChild?.id !== at.id) return true;
  }
  return false;
}

const STANDARD_OUTPUTS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);

/** Whether a statement's output goes into another command: it, or a statement around it, is piped on or captured. */
function feedsAnother(node: Node): boolean {
  for (let at: Node | null = node; at; at = at.parent) {
    if (at.type === 'command_substitution' || at.type === 'process_substitution' || at.type === 'coproc_statement') return true;
    const parent = at.parent;
    if (parent?.type === 'pipeline' && parent.lastNamedChild?.id !== at.id) return true;
  }
  return false;
}

// `$name`, `${name}`, `${#name}`, `$1`, `$@`: expansions that only substitute a value.
const PLAIN_PARAMETER = /^\$(\{#?)?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])\}?$/;

/** Whether a word's expansions are all plain parameters (nothing in it runs a command or assigns). */
function plain(node: Node): boolean {
  if (node.descendantsOfType(['command_substitution', 'process_substitution', 'arithmetic_expansion']).length) return false;
  if (['command_substitution', 'process_substitution', 'arithmetic_expansion'].includes(node.type)) return false;
  const expansions = [node, ...node.descendantsOfType(['simple_expansion', 'expansion'])].filter(
    (n): n is Node => n !== null && (n.type === 'simple_expansion' || n.type === 'expansion'),
  );
  return expansions.every((n) => PLAIN_PARAMETER.test(n.text) && n.text.startsWith('${') === n.text.endsWith('}'));
}

const EXPANSIONS = ['simple_expansion', 'expansion', 'command_substitution', 'process_substitution', 'arithmetic_expansion'];

/** Whether the shell expands something in this word when it runs (single quotes and backslashes keep `$` literal). */
function expands(node: Node): boolean {
  return EXPANSIONS.includes(node.type) || node.descendantsOfType(EXPANSIONS).length > 0;
}

/** A word's value as the shell would see it before expansion: quotes and backslashes removed. */
export function wordText(node: Node): string {
  switch (node.type) {
    case 'command_name':
    case 'concatenation':
      return node.namedChildren.map((c) => (c ? wordText(c) : '')).join('') || node.text;
    case 'word':
      return node.text.replace(/\\(.)/g, '$1');
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'ansi_c_string':
      return node.text.slice(2, -1);
    case 'string':
    case 'translated_string': {
      const inner = node.type === 'translated_string' ? node.text.slice(2, -1) : node.text.slice(1, -1);
      return inner.replace(/\\([$`"\\\n])/g, '$1');
    }
    default:
      return node.text;
  }
}
