import { describe, expect, it } from 'vitest';
import { parseShell, parseWithGrammar, plainCommandLine } from './shell-parse';

const PLAIN = [
  'ls',
  'ls -la src',
  'git status',
  'git log --oneline -5',
  'npm run test:unit -- a.ts',
  'cat README.md',
  'ls a=b',
  'wc -l src/a.ts src/b.ts',
  'node --version',
  'rm -rf .git/hooks',
  'cp a b',
  'g++ -O2 -o out main.cc',
  'curl -s https://example.com/x',
  'echo 1 2 1',
  'chmod u+x,g-w run.sh',
  'ssh user@host:22',
];

const NOT_PLAIN = [
  '',
  ' ls',
  'ls ',
  'ls  -la',
  'ls\t-la',
  'FOO=1 ls',
  'export A=1',
  'unset A',
  'local a',
  'time ls',
  'if',
  'ls > out.txt',
  'ls | wc -l',
  'ls && rm -rf .',
  'ls; rm x',
  'echo $HOME',
  'echo "a b"',
  "echo 'a'",
  'ls *.ts',
  'curl https://example.com/x?y',
  'ls ~/x',
  'ls a\\ b',
  'echo `id`',
  'ls # comment',
  'ls\nrm x',
  '-x a',
  '%1',
  'ls {a,b}',
  '!ls',
  'ls &',
];

describe('plainCommandLine', () => {
  it('reads plain command lines exactly as the Bash grammar does', async () => {
    for (const line of PLAIN) {
      const quick = plainCommandLine(line);
      expect({ line, quick: quick !== null }).toEqual({ line, quick: true });
      expect({ line, parsed: quick }).toEqual({ line, parsed: await parseWithGrammar(line) });
    }
  });

  it('leaves everything else to the grammar: quotes, expansions, operators, redirections, assignments, reserved words', async () => {
    for (const line of NOT_PLAIN) expect({ line, quick: plainCommandLine(line) }).toEqual({ line, quick: null });
    // …which parseShell then parses in full.
    expect((await parseShell('ls && rm -rf .')).commands.map((c) => c.name)).toEqual(['ls', 'rm']);
    expect((await parseShell('ls > out.txt')).commands[0]!.writes).toEqual(['out.txt']);
  });
});
