import type { ShellCommand } from './shell-parse';

// Words that run the command after them: `sudo rm -rf /` is an rm.
const WRAPPERS = new Set(['sudo', 'doas', 'command', 'builtin', 'env', 'nohup', 'nice', 'time', 'exec', 'xargs', 'busybox']);

/** Shells whose scripts Deft reads as it reads the command line itself. */
export const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash']);

/** Programs that run code in a language Deft does not read (or a shell's): given it on their input, they may do anything. */
const INTERPRETERS = new Set([
  ...SHELLS,
  'fish',
  'python',
  'python2',
  'python3',
  'node',
  'nodejs',
  'deno',
  'bun',
  'perl',
  'ruby',
  'php',
  'lua',
  'luajit',
  'tclsh',
  'pwsh',
  'powershell',
  'osascript',
]);

/** The command a wrapper runs, with its arguments (`sudo -u x rm -rf /` → rm), and the wrappers passed. */
export function unwrap(command: ShellCommand): { name: string; args: string[]; via: string[] } {
  let name = basename(command.name);
  let args = command.args;
  const via: string[] = [];
  for (let depth = 0; WRAPPERS.has(name) && depth < 4; depth++) {
    via.push(name);
    const next = args.findIndex((a) => !a.startsWith('-') && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(a));
    if (next < 0) return { name, args: [], via };
    name = basename(args[next]!);
    args = args.slice(next + 1);
  }
  return { name, args, via };
}

export function basename(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/**
 * Whether an interpreter given these arguments reads its program from standard input: no script operand
 * (`sh`, `python3`), `-` as the operand (`python3 -`), or a shell's `-s` (`bash -s arg`). Python's versioned
 * names (`python3.12`) count as `python3`.
 */
export function readsProgramFromInput(name: string, args: readonly string[]): boolean {
  // The program in an argument: a shell's -c, other interpreters' -c or -e (a shell's -e is errexit).
  const inline = SHELLS.has(name) ? /^-[A-Za-z]*c[A-Za-z]*$/ : /^-[A-Za-z]*[ce][A-Za-z]*$/;
  if (args.some((a) => inline.test(a))) return false;
  const operand = args.findIndex((a) => a === '-' || !a.startsWith('-'));
  return operand < 0 || args[operand] === '-' || args.slice(0, operand).some((a) => /^-[A-Za-z]*s[A-Za-z]*$/.test(a));
}

/** The interpreter a command runs (through any wrapper), when it is one, with its arguments. */
export function interpreterOf(command: ShellCommand): { name: string; args: string[] } | null {
  const { name, args } = unwrap(command);
  const plain = name.replace(/^(python\d?)\.\d+$/, '$1');
  return INTERPRETERS.has(plain) ? { name: plain, args } : null;
}

/**
 * Why Deft cannot see what a command runs, when it is an interpreter reading its program from a pipe
 * (`… | sh`, `curl … | bash -s`): what the pipe carries is known only when it runs. A program on the line
 * itself (a here-document, `-c`) is not this: a shell's is read as a nested script, another language's is
 * as visible as its `-c` would be. Null otherwise.
 */
export function unseenProgram(command: ShellCommand): string | null {
  if (command.input !== 'fed') return null;
  const interpreter = interpreterOf(command);
  if (!interpreter || !readsProgramFromInput(interpreter.name, interpreter.args)) return null;
  return 'reads its program from a pipe, known only once it runs';
}
