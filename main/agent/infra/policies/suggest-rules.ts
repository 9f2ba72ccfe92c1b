import { escapeRuleArgument } from './rule-match';
import type { ParsedShell, ShellCommand } from './shell-parse';

/**
 * Programs whose first word says nothing about what they will do (shells, wrappers, interpreters), or
 * that destroy, move or send data: a prefix rule for them would allow far more than the user saw, so
 * only the exact command is proposed.
 */
const EXACT_ONLY = new Set([
  'bash',
  'sh',
  'zsh',
  'dash',
  'fish',
  'ksh',
  'csh',
  'tcsh',
  'eval',
  'exec',
  'source',
  '.',
  'sudo',
  'su',
  'doas',
  'env',
  'xargs',
  'nohup',
  'time',
  'timeout',
  'nice',
  'ionice',
  'command',
  'builtin',
  'watch',
  'parallel',
  'find',
  'awk',
  'sed',
  'perl',
  'ruby',
  'python',
  'python3',
  'node',
  'deno',
  'php',
  'lua',
  'osascript',
  'powershell',
  'pwsh',
  'rm',
  'rmdir',
  'shred',
  'mv',
  'cp',
  'dd',
  'chmod',
  'chown',
  'chgrp',
  'ln',
  'truncate',
  'kill',
  'killall',
  'pkill',
  'curl',
  'wget',
  'ssh',
  'scp',
  'sftp',
  'rsync',
  'nc',
  'ncat',
  'netcat',
  'telnet',
  'ftp',
  'open',
  'xdg-open',
  'crontab',
  'systemctl',
  'launchctl',
  'mkfs',
  'mount',
  'umount',
  'tee',
]);

/** Programs whose next word (or two) names the action: `git diff`, `npm test`, `npm run build`, `cargo test`. */
const SUBCOMMANDS = new Set([
  'git',
  'npm',
  'pnpm',
  'yarn',
  'bun',
  'npx',
  'cargo',
  'go',
  'docker',
  'podman',
  'kubectl',
  'helm',
  'make',
  'just',
  'pip',
  'pip3',
  'poetry',
  'uv',
  'dotnet',
  'gradle',
  './gradlew',
  'mvn',
  './mvnw',
  'swift',
  'deft',
  'gh',
  'terraform',
  'rake',
  'bundle',
  'mix',
  'composer',
  'brew',
  'apt',
  'apt-get',
  'conda',
  'tsc',
  'vitest',
  'jest',
  'pytest',
  'rustup',
]);
/** Second words that take a third naming the script or tool (`npm run build`, `npm exec tsc`). */
const RUNNERS = new Set(['run', 'exec', 'run-script', 'x', 'dlx', 'workspace']);
/** A word that names an action rather than data (no paths, flags, globs, quotes or expansions). */
const ACTION_WORD = /^[A-Za-z][\w:.@-]*$/;

/** The prefix rule for one simple command, or its exact rule when no prefix is safe or useful. */
function ruleFor(tool: string, part: ShellCommand): string {
  const exact = `${tool}(${escapeRuleArgument(part.text)})`;
  const words = part.text.split(/\s+/);
  // `FOO=1 npm test`, quoted or expanded program names, redirections only: the exact text.
  if (!part.name || words[0] !== part.name || EXACT_ONLY.has(part.name) || !/^[\w./@+-]+$/.test(part.name)) return exact;
  const prefix = [part.name];
  if (SUBCOMMANDS.has(part.name)) {
    for (const word of words.slice(1, 3)) {
      if (!ACTION_WORD.test(word) || /\.(\w+)$/.test(word)) break;
      prefix.push(word);
      if (!RUNNERS.has(word)) break;
    }
  }
  return `${tool}(${escapeRuleArgument(prefix.join(' '))}:*)`;
}

/**
 * Rules worth remembering for a command the user approves (`tool`: the shell tool that runs it): one prefix rule per distinct simple command
 * (`npm test -- --watch` → `Bash(npm test:*)`, `git diff src/a.ts && npm test` → `Bash(git diff:*)`,
 * `Bash(npm test:*)`), which keep matching the next time the arguments change. Wrappers, interpreters
 * and destructive programs get their exact text. Empty when the command could not be parsed or nothing
 * but the exact command itself would be proposed.
 */
export function suggestShellRules(tool: string, command: string, shell: ParsedShell): string[] {
  if (!shell.complete || !shell.commands.length) return [];
  const rules = [...new Set(shell.commands.map((part) => ruleFor(tool, part)))];
  const exact = `${tool}(${escapeRuleArgument(command)})`;
  return rules.length === 1 && rules[0] === exact ? [] : rules;
}
